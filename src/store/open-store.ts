import type { DatabaseUrl } from '../config.js'
import { openPostgres } from './postgres/index.js'
import { openSqlite } from './sqlite/index.js'
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
      case 'sqlite':
        return openSqlite({ path: database.path, synchronous: database.synchronous, onBatch: options.onBatch })
      case 'postgres':
        return await openPostgres({ url: database.url, poolSize: database.poolSize, ...options })
    }
  } catch (error) {
    throw new StoreOpenError(`cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${(error as Error).message}`)
  }
}
