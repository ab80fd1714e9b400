/**
 * The store's own failures, named, each keeping the driver's error as its `cause`: what the store
 * throws besides a domain outcome. The HTTP edge maps StoreUnavailable to 503 (code 5001); the command
 * line words the others.
 */

/** The database cannot serve now (unreachable, busy, overloaded, out of disk): worth retrying later. */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable'

  constructor (cause: unknown) {
    super(`the database cannot serve now: ${(cause as Error).message ?? String(cause)}`, { cause })
  }
}

/** A command that only reads a store was pointed at an SQLite file that does not exist. */
export class StoreMissing extends Error {
  override name = 'StoreMissing'

  constructor (path: string) {
    super(`no store at ${path} (serve or migrate creates one)`)
  }
}

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

export class TokenNameTaken extends Error {
  override name = 'TokenNameTaken'

  constructor (name: string) {
    super(`a token named ${name} exists`)
  }
}

/** Thrown by backup() where the database has its own tool for it. */
export class BackupUnsupported extends Error {
  override name = 'BackupUnsupported'
}

/** A plant that cannot be written to PostgreSQL, whose text cannot hold U+0000 (copied from an SQLite store that took it before it was refused). */
export class UnstorableText extends Error {
  override name = 'UnstorableText'

  constructor (id: bigint) {
    super(`plant ${id} holds U+0000 in its name or tag, which PostgreSQL cannot store: change it in the source store (PUT /plants/${id}) and copy again`)
  }
}
