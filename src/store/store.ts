import type { MessagePort } from 'node:worker_threads'
import type { BulkStore } from './bulk-store.js'
import type { PlantStore } from './plant-store.js'
import type { TokenStore } from './token-store.js'
import type { WebhookStore } from './webhook-store.js'

export * from './bulk-store.js'
export * from './plant-store.js'
export * from './token-store.js'
export * from './webhook-store.js'

/**
 * Everything the service keeps, by concern. One implementation per database (src/store/sqlite/,
 * src/store/postgres/), each concern in its own file; driver errors never leave an implementation
 * except as StorageUnavailable (see errors.ts) or a domain outcome.
 */
export interface Store {
  readonly plants: PlantStore
  readonly tokens: TokenStore
  readonly webhooks: WebhookStore
  /** Export, import, copy and backup (the CLI's; never on the request path). */
  readonly bulk: BulkStore
  /**
   * SQLite on a file only: a port into the store's writer thread, through which another thread's
   * writes (the webhook dispatcher's) join the same batches (see sqlite/write-channel.ts).
   */
  connectWriter?: () => MessagePort
  /** Throws StorageUnavailable when the database cannot answer. */
  ping (): Promise<void>
  close (): Promise<void>
}

/** A command that only reads a store was pointed at an SQLite file that does not exist. */
export class StoreMissing extends Error {
  override name = 'StoreMissing'

  constructor (path: string) {
    super(`no store at ${path} (serve or migrate creates one)`)
  }
}
