import type { PlantStore } from './plant-store.js'
import type { TokenStore } from './token-store.js'
import type { WebhookStore } from './webhook-store.js'

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
  /** Throws StorageUnavailable when the database cannot answer. */
  ping (): Promise<void>
  close (): Promise<void>
}
