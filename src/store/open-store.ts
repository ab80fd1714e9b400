import type { DatabaseUrl } from '../config.js'
import { openSqlite } from './sqlite.js'
import type { Store } from './store.js'

/** Opens and migrates the store a database URL names. */
export async function openStore (database: DatabaseUrl): Promise<Store> {
  switch (database.kind) {
    case 'sqlite':
      return openSqlite({ path: database.path, synchronous: database.synchronous })
    case 'postgres':
      throw new Error('PostgreSQL is not supported by this build yet; use sqlite:PATH')
  }
}
