import type Database from 'better-sqlite3'

// How often to ask SQLite whether another connection (another process, the CLI) committed anything.
const CHECK_EVERY_MS = 100

/**
 * An invalidation signal for caches of this store: true when `PRAGMA data_version` says another
 * connection committed since the last check, asked at most every `everyMs` (100 ms by default, so the
 * CLI's `tokens revoke` holds within that).
 */
export function changedElsewhere (db: Database.Database, everyMs = CHECK_EVERY_MS): () => boolean {
  const dataVersion = db.prepare<[], bigint>('PRAGMA data_version').pluck()
  let version: bigint | undefined
  let checkedAt = 0
  return () => {
    const now = Date.now()
    if (now - checkedAt < everyMs) return false
    checkedAt = now
    const current = dataVersion.get()
    const changed = current !== version
    version = current
    return changed
  }
}

/**
 * `PRAGMA data_version`, asked at most once a turn of the event loop (each ask takes the file's locks)
 * and kept until setImmediate. A request read in a turn was sent before another process's commit of
 * that turn was acknowledged, unless pipelined behind an unanswered one.
 */
export function dataVersionOncePerTurn (db: Database.Database): () => bigint {
  const dataVersion = db.prepare<[], bigint>('PRAGMA data_version').pluck()
  let version: bigint | undefined
  return () => {
    if (version === undefined) {
      version = dataVersion.get()!
      setImmediate(() => { version = undefined })
    }
    return version
  }
}
