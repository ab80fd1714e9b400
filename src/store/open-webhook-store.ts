import type { MessagePort } from 'node:worker_threads'
import type { DatabaseUrl } from '../config/config.js'
import { GroupCommit } from './group-commit.js'
import type { WriteJob, WriteResult } from './sqlite/write-jobs.js'
import type { WebhookStore } from './store.js'

/**
 * The outbox alone, for the webhook dispatcher's own thread, over connections of its own: on
 * PostgreSQL a small pool; on SQLite a reading connection, with its writes sent through `writerPort`
 * into the store's writer thread (see Store.connectWriter). The store was opened, and so migrated,
 * by the main thread.
 */
export async function openWebhookStore (database: DatabaseUrl, writerPort?: MessagePort): Promise<{ webhooks: WebhookStore, close: () => Promise<void> }> {
  if (database.kind === 'postgres') {
    const { createPool, PostgresDatabase } = await import('./postgres/database.js')
    const { PostgresWebhooks } = await import('./postgres/webhooks.js')
    // Claims and outcomes only: losing the last of them to a crash of the database sends an event again.
    const pool = createPool(database.url, 2, { durableCommits: false })
    pool.on('error', () => {})
    return { webhooks: new PostgresWebhooks(new PostgresDatabase(pool)), close: () => pool.end() }
  }
  if (writerPort === undefined) throw new Error('an SQLite file store shares its writer thread through a port')
  const { asUnavailable, connect } = await import('./sqlite/connection.js')
  const { WriteChannel } = await import('./sqlite/write-channel.js')
  const { SqliteWebhooks } = await import('./sqlite/webhooks.js')
  const db = connect(database.path, database.synchronous, 'thread')
  const channel = new WriteChannel(writerPort)
  const writes = new GroupCommit<WriteJob, WriteResult>((jobs) => channel.run(jobs).catch(asUnavailable), { maxInFlight: 2 })
  return {
    webhooks: new SqliteWebhooks(db, writes),
    close: async () => {
      writerPort.close()
      db.close()
    }
  }
}
