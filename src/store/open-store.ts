import { describeSystemError } from '../lib/system-errors.js'
import { StoreMissing, StoreOpenError } from './errors.js'
import type { DialectStore, Store } from './store.js'
import { announcingPlants, announcingTokens, announcingWebhooks, Commits } from './commits.js'
import type { MessagePort } from 'node:worker_threads'
import { GroupCommit } from './group-commit.js'
import type { WriteJob, WriteResult } from './sqlite/write-jobs.js'
import type { WebhookStore } from './store.js'
import type { SqliteSynchronous } from './sqlite/connection.js'

/** Where a store is, as config/ reads it from a database URL (the store takes it as a value). */
export type StoreLocation =
  | { kind: 'sqlite', path: string, synchronous: SqliteSynchronous }
  | { kind: 'postgres', url: string, poolSize: number }

/** Opens and migrates the store a database URL names. */
export async function openStore (database: StoreLocation, options: {
  /** Whether a missing SQLite file is created (serve, migrate, a copy's target) or refused (StoreMissing). */
  create?: boolean
  onPoolError?: (error: Error) => void
  /** Told the size of each group-commit batch. */
  onBatch?: (size: number) => void
  /** Bytes the token lookups' cache may hold. */
  tokenCacheBytes?: number
  /** Serving requests: on SQLite, this process's connection only reads (one writer per file: its thread). */
  serving?: boolean
  /**
   * PostgreSQL: every connection of the pool opened now, in the background, each warmed with the write
   * path's statement, and kept open (serve). A new server connection's first create parses that
   * statement and loads the catalogs it names, paid by whichever request met it as the pool grew.
   */
  warm?: boolean
  /** PostgreSQL: why the warm-up could not ready every connection. */
  onWarmFailure?: (error: Error) => void
} = {}): Promise<Store> {
  try {
    return announcingCommits(await openDialect(database, options))
  } catch (error) {
    if (error instanceof StoreMissing) throw error
    throw new StoreOpenError(`cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${reason(error)}`, error)
  }
}

async function openDialect (database: StoreLocation, options: Parameters<typeof openStore>[1] = {}): Promise<DialectStore> {
  switch (database.kind) {
    // Each driver is loaded only when its database is used.
    case 'sqlite':
      return (await import('./sqlite/index.js')).openSqlite({
        path: database.path, synchronous: database.synchronous, create: options.create, onBatch: options.onBatch, tokenCacheBytes: options.tokenCacheBytes, readonly: options.serving
      })
    case 'postgres':
      return await (await import('./postgres/index.js')).openPostgres({ url: database.url, poolSize: database.poolSize, ...options })
  }
}

/** The store whose writes announce, once committed, what they committed (commits.ts). */
function announcingCommits (store: DialectStore): Store {
  const commits = new Commits()
  return {
    commits,
    plants: announcingPlants(store.plants, commits),
    tokens: announcingTokens(store.tokens, commits),
    webhooks: announcingWebhooks(store.webhooks, commits),
    events: store.events,
    bulk: store.bulk,
    dialect: store.dialect,
    ping: () => store.ping(),
    close: () => store.close()
  }
}

// The drivers' codes in words, beside the system's (lib/system-errors.ts); a store's folder is made
// with mkdir, whose EEXIST means a file stands in the way.
const DRIVER_REASONS: Record<string, string> = {
  EEXIST: 'a file stands where a folder is needed',
  SQLITE_CANTOPEN: 'the file cannot be opened',
  SQLITE_NOTADB: 'the file is not an SQLite database',
  SQLITE_CORRUPT: 'the file is damaged',
  '28P01': 'password authentication failed',
  '3D000': 'the database does not exist',
  28000: 'the server refused this user'
}

const reason = (error: unknown) => describeSystemError(error, DRIVER_REASONS) ?? (error as Error).message ?? String(error)

/**
 * The outbox alone, for the webhook dispatcher's own thread, over connections of its own: on
 * PostgreSQL a small pool; on SQLite a reading connection, with its writes sent through `writerPort`
 * into the store's writer thread (see StoreDialect.connectWriter). The store was opened, and so migrated,
 * by the main thread.
 */
export async function openWebhookStore (database: StoreLocation, writerPort?: MessagePort): Promise<{ webhooks: WebhookStore, close: () => Promise<void> }> {
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
  const { ThreadChannel } = await import('../lib/thread-channel.js')
  const { SqliteWebhooks } = await import('./sqlite/webhooks.js')
  const db = connect(database.path, database.synchronous, 'thread', { readonly: true })
  const channel = new ThreadChannel<WriteJob, WriteResult>(writerPort)
  const writes = new GroupCommit<WriteJob, WriteResult>((jobs) => channel.run(jobs).catch(asUnavailable), { maxInFlight: 2 })
  return {
    webhooks: new SqliteWebhooks(db, writes),
    close: async () => {
      writerPort.close()
      db.close()
    }
  }
}
