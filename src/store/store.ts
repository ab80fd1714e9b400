import type { MessagePort } from 'node:worker_threads'
import type { BulkStore } from './bulk-store.js'
import type { Commits } from './commits.js'
import type { EventStore } from './event-store.js'
import type { PlantStore } from './plant-store.js'
import type { TokenStore } from './token-store.js'
import type { WebhookStore } from './webhook-store.js'

export * from './bulk-store.js'
export * from './commits.js'
export * from './delivery-claims.js'
export * from './delivery-handoff.js'
export * from './errors.js'
export * from './event-store.js'
export * from './plant-store.js'
export * from './token-store.js'
export * from './webhook-store.js'

/**
 * The capabilities one database declares (as kysely's adapters declare theirs), so that callers ask
 * the dialect instead of testing for optional members.
 */
export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres'
  /** False for a store private to this connection (SQLite `:memory:`): no other thread can open it. */
  readonly sharedAcrossThreads: boolean
  /**
   * A cheap value that changes whenever plants may have changed, by any process (SQLite's
   * `data_version`); undefined where the database has none, and then reads are not cached (routes/read-cache.ts).
   */
  readonly readVersion: () => string | undefined
  /**
   * A port into the store's single writer thread, through which another thread's writes (the webhook
   * dispatcher's) join the same batches (lib/thread-channel.ts); null where any connection may write.
   */
  readonly connectWriter: (() => MessagePort) | null
  /**
   * How many pages beyond the plain list (a filter, a search, another order, a count) it reads at once:
   * such a page may read much of the table, and more at once would only queue in the database.
   */
  readonly pageReaders: number
  /** How many batches (`POST /batch`, up to 1,000 writes each) it writes at once; more would only queue. */
  readonly batchWriters: number
}

/**
 * Everything the service keeps, by concern. One implementation per database (src/store/sqlite/,
 * src/store/postgres/), each concern in its own file; driver errors never leave an implementation
 * except as one of the store's named errors (errors.ts, the driver's error as `cause`) or a domain outcome.
 */
export interface Store {
  /** What this process's writes committed, for the feed and the dispatcher to follow (commits.ts). */
  readonly commits: Commits
  readonly plants: PlantStore
  readonly tokens: TokenStore
  readonly webhooks: WebhookStore
  /** The event log, for the streams and retention. */
  readonly events: EventStore
  /** Export, import, copy and backup (the CLI's; never on the request path). */
  readonly bulk: BulkStore
  /** What this database can do beyond the shared interface. */
  readonly dialect: StoreDialect
  /** Throws StoreUnavailable when the database cannot answer. */
  ping (): Promise<void>
  close (): Promise<void>
}

/** A store as a dialect opens it; openStore adds the announcements of its commits. */
export type DialectStore = Omit<Store, 'commits'>
