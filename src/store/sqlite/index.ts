import type Database from 'better-sqlite3'
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { GroupCommit } from '../group-commit.js'
import { StoreMissing } from '../errors.js'
import type { DialectStore } from '../store.js'
import { asUnavailable, connect, guard } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { migrateSqlite } from './migrations.js'
import { SqliteBulk } from './bulk.js'
import { SqliteEvents } from './events.js'
import { SqlitePlants } from './plants.js'
import { SqliteTokens } from './tokens.js'
import { SqliteWebhooks } from './webhooks.js'
import { createWriteRunner } from './write-jobs.js'
import type { WriteJob, WriteResult } from './write-jobs.js'
import { SqliteWriter } from './writer.js'
import { workerPool } from '../../lib/worker-thread.js'
import { receivedError } from '../../lib/thread-channel.js'
import type { PageAnswer } from './page-reader-worker.js'
import { plantPages } from './plant-pages.js'
import type { PlantPage, PlantQuery } from '../store.js'

export type { SqliteSynchronous } from './connection.js'

/** Two page readers keep both cores of a small machine busy beside the event loop; more only queue. */
const PAGE_READER_THREADS = 2
/** Each page reader has the next page in hand while it reads one, so it never waits on the event loop between them. */
const PAGES_IN_HAND = 2

export interface SqliteOptions {
  /** `:memory:` or a file path; the file's folder is created. */
  path: string
  /** False: a file that does not exist is refused (StoreMissing) rather than created. */
  create?: boolean
  /** FULL by default: a 200 survives a power cut, not only a crash of the process. */
  synchronous?: SqliteSynchronous
  /** Told the creates committed together in each transaction. */
  onBatch?: (creates: number) => void
  /** Bytes the token lookups' cache may hold (default 1 MiB). */
  tokenCacheBytes?: number
  /** Serving: this connection only reads, and every write goes through the writer thread (files only). */
  readonly?: boolean
}

/** Pages read on this connection, on the event loop (an in-memory store, which no thread can share). */
function pagesHere (db: Database.Database): (query: PlantQuery) => Promise<PlantPage> {
  const pages = plantPages(db)
  return async (query) => guard(() => pages(query))
}

/**
 * Opens (creating if need be) and migrates an SQLite store. Reads run on this connection, on the event
 * loop, but for pages beyond the plain list, which on a file page reader threads read; every write
 * of the hot path (creates, webhook claims and outcomes) goes through one write queue: batched, and on
 * a file committed on a writer thread, so the fsync never blocks the event loop.
 * Throws with the driver's reason.
 */
export function openSqlite (options: SqliteOptions): DialectStore {
  if (options.path !== ':memory:') {
    if (options.create === false && !existsSync(options.path)) throw new StoreMissing(options.path)
    mkdirSync(dirname(options.path), { recursive: true })
    // A new store is owner-only (it holds webhook secrets); SQLite gives its -wal and -shm the same mode.
    closeSync(openSync(options.path, 'a', 0o600))
  }
  const synchronous = options.synchronous ?? 'FULL'
  // Serving on a file, this connection only reads: every write goes to the writer thread, and one made
  // here by mistake fails (SQLITE_READONLY). Migrations run first, on a connection of their own.
  const readonly = options.readonly === true && options.path !== ':memory:'
  let db: Database.Database
  if (readonly) {
    const migrating = connect(options.path, synchronous, 'thread')
    try {
      migrateSqlite(migrating)
      db = connect(options.path, synchronous, 'main', { readonly })
    } finally {
      migrating.close()
    }
  } else {
    db = connect(options.path, synchronous)
    migrateSqlite(db)
  }
  // An in-memory database is private to its connection, and has no fsync to move off the event loop.
  const writer = options.path === ':memory:' ? undefined : new SqliteWriter(options.path, synchronous)
  const runHere = writer === undefined ? createWriteRunner(db, synchronous) : undefined
  const writes = new GroupCommit<WriteJob, WriteResult>(
    writer !== undefined
      ? (jobs) => writer.run(jobs).catch(asUnavailable)
      : (jobs) => guard(() => runHere!(jobs)),
    {
      // A writer thread queues, and commits what queued meanwhile together: it can take the next
      // batches while it commits this one.
      maxInFlight: writer === undefined ? 1 : 4,
      onBatch: (jobs) => {
        const creates = jobs.filter((job) => job.op === 'create').length
        if (creates > 0) options.onBatch?.(creates)
      }
    })
  // Pages beyond the plain list may read much of the table: on a file, threads of their own read
  // them, so that one such query never stalls the event loop.
  const reader = writer === undefined
    ? undefined
    : workerPool<PlantQuery, PageAnswer>(import.meta.url, 'page-reader-worker', { threads: PAGE_READER_THREADS, perThread: PAGES_IN_HAND, workerData: { path: options.path, synchronous } })
  const readPage = reader === undefined
    ? pagesHere(db)
    : async (query: PlantQuery) => {
      const answer = await reader.run(query)
      if ('error' in answer) asUnavailable(receivedError(answer.error))
      return answer.page
    }
  const plants = new SqlitePlants(db, writes, readPage)
  const tokens = new SqliteTokens(db, writes, options.tokenCacheBytes ?? 1 << 20)
  return {
    dialect: {
      name: 'sqlite',
      sharedAcrossThreads: writer !== undefined,
      readVersion: plants.readVersion,
      connectWriter: writer === undefined ? null : () => writer.connect(),
      // Without reader threads, the event loop reads them one after another.
      pageReaders: reader === undefined ? 1 : PAGE_READER_THREADS * PAGES_IN_HAND,
      // One writer: a batch being written and the next one ready.
      batchWriters: 2
    },
    plants,
    tokens,
    webhooks: new SqliteWebhooks(db, writes),
    bulk: new SqliteBulk(db),
    events: new SqliteEvents(db, writes),
    ping: async () => { guard(() => db.prepare('SELECT 1').get()) },
    close: async () => {
      // "Last used" is a courtesy: a store that cannot take it now does not hold the close up.
      await tokens.close().catch(() => {})
      await reader?.close()
      await writer?.close()
      if (db.open) db.close()
    }
  }
}
