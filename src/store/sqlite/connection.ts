import Database from 'better-sqlite3'
import { StoreUnavailable } from '../errors.js'

/** SQLite's synchronous pragma, as the store is opened with it (config/ parses the setting). */
export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

/**
 * The page cache a connection keeps, by its role. The main connection answers the requests' reads:
 * 8 MiB holds the hot pages. The writer inserts each plant at a random place in the name indexes, so
 * it keeps their upper levels and recent leaves rather than read them back from the file at each
 * batch. The other threads' connections need little (the dispatcher reads the subscriptions).
 */
const CACHE_KIB = { main: 8192, writer: 16384, thread: 2048 }

/**
 * WAL frames between two checkpoints, on a connection that writes many pages (the writer thread's, an
 * import's). A checkpoint copies each page of the WAL back to the file once, however many commits
 * rewrote it: the indexes' leaves are rewritten by commit after commit, so a longer WAL copies each
 * fewer times (SQLite's default is 1,000). The WAL file then stays at about 40 MiB of 4 KiB pages,
 * reused after each checkpoint.
 */
export const WRITER_CHECKPOINT_FRAMES = 10_000

/** Opens a connection with the store's settings; every connection to one file uses these, its page cache chosen by its role. */
export function connect (path: string, synchronous: SqliteSynchronous, role: keyof typeof CACHE_KIB = 'main', { readonly = false } = {}): Database.Database {
  const db = new Database(path, { readonly })
  // The file is in WAL mode already when a connection only reads it (the writing one set it).
  if (!readonly) db.pragma('journal_mode = WAL')
  // FULL by default: WAL frames are fsynced before a commit is visible or acknowledged.
  db.pragma(`synchronous = ${synchronous}`)
  db.pragma('busy_timeout = 5000')
  // The file is not memory-mapped: mapped pages count in the process's memory, which then grew with
  // the database for no speed won.
  db.pragma(`cache_size = -${CACHE_KIB[role]}`)
  if (role === 'writer') db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_FRAMES}`)
  db.defaultSafeIntegers(true)
  return db
}

// Codes that mean "the database cannot serve now", not "the request is wrong": answered with 503.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/

/** Runs a driver call, turning "cannot serve now" driver errors into StoreUnavailable. */
export function guard<T> (call: () => T): T {
  try {
    return call()
  } catch (error) {
    throw unavailable(error) ? new StoreUnavailable(error) : error
  }
}

export function unavailable (error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && UNAVAILABLE.test(code)
}

/** For a failed batch from the writer thread: rethrows it, as StoreUnavailable when the database cannot serve now. */
export function asUnavailable (error: unknown): never {
  throw unavailable(error) ? new StoreUnavailable(error) : error
}

/**
 * A bound integer the query planner must not see. SQLite (3.54) plans with the value bound to a bare
 * LIMIT parameter, and with an integer bound to 0 or 1 in an equality that a candidate plan does not
 * take from an index, and then prepares the statement again at every later binding of that parameter:
 * the outbox claim was parsed and planned anew on every run, at several times the cost of the run
 * itself, and so was every list page. Behind a CAST the value is opaque to the planner,
 * and the plan is the one it chose anyway.
 */
export const opaqueInteger = (parameter: string) => `CAST(${parameter} AS INTEGER)`

/** Statements compiled once and kept: preparing is the costliest part of a small query. */
export class Statements {
  readonly #db: Database.Database
  readonly #cache = new Map<string, Database.Statement>()

  constructor (db: Database.Database) {
    this.#db = db
  }

  get<P extends unknown[] | {} = unknown[], R = unknown> (sql: string): Database.Statement<P, R> {
    let statement = this.#cache.get(sql)
    if (statement === undefined) {
      statement = this.#db.prepare(sql)
      this.#cache.set(sql, statement)
    }
    return statement as Database.Statement<P, R>
  }
}
