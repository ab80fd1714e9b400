import type { DatabaseUrl } from '../config.js'
import type { Store } from './store.js'

/** The store could not be opened: its message names the setting and the reason, for one start-up line. */
export class StoreOpenError extends Error {}

/** Opens and migrates the store a database URL names. */
export async function openStore (database: DatabaseUrl, options: {
  onPoolError?: (error: Error) => void
  /** Told the size of each group-commit batch. */
  onBatch?: (size: number) => void
} = {}): Promise<Store> {
  try {
    switch (database.kind) {
      // Each driver is loaded only when its database is used.
      case 'sqlite':
        return (await import('./sqlite/index.js')).openSqlite({ path: database.path, synchronous: database.synchronous, onBatch: options.onBatch })
      case 'postgres':
        return await (await import('./postgres/index.js')).openPostgres({ url: database.url, poolSize: database.poolSize, ...options })
    }
  } catch (error) {
    throw new StoreOpenError(`cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${(error as Error).message}`)
  }
}
