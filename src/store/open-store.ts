import type { DatabaseUrl } from '../config/config.js'
import { describeSystemError } from '../lib/system-errors.js'
import { StoreMissing } from './store.js'
import type { Store } from './store.js'

/** The store could not be opened: its message names the setting and the reason, for one start-up line. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError'
  /** True when the setting itself is wrong (a path, a password, a database name), not the store's state. */
  readonly misconfigured: boolean

  constructor (message: string, cause: unknown) {
    super(message, { cause })
    const code = (cause as { code?: unknown }).code
    this.misconfigured = typeof code === 'string' && MISCONFIGURED.has(code)
  }
}

const MISCONFIGURED = new Set(['ENOTDIR', 'EEXIST', 'EACCES', 'EPERM', 'EROFS', 'ENOTFOUND', 'SQLITE_NOTADB', '28P01', '3D000', '28000'])

/** Opens and migrates the store a database URL names. */
export async function openStore (database: DatabaseUrl, options: {
  /** Whether a missing SQLite file is created (serve, migrate, a copy's target) or refused (StoreMissing). */
  create?: boolean
  onPoolError?: (error: Error) => void
  /** Told the size of each group-commit batch. */
  onBatch?: (size: number) => void
  /** Bytes the token lookups' cache may hold. */
  tokenCacheBytes?: number
} = {}): Promise<Store> {
  try {
    switch (database.kind) {
      // Each driver is loaded only when its database is used.
      case 'sqlite':
        return (await import('./sqlite/index.js')).openSqlite({
          path: database.path, synchronous: database.synchronous, create: options.create, onBatch: options.onBatch, tokenCacheBytes: options.tokenCacheBytes
        })
      case 'postgres':
        return await (await import('./postgres/index.js')).openPostgres({ url: database.url, poolSize: database.poolSize, ...options })
    }
  } catch (error) {
    if (error instanceof StoreMissing) throw error
    throw new StoreOpenError(`cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${reason(error)}`, error)
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
