/**
 * A command's failure, printed as one line, with the exit code docs/errors.md gives it: 1 for a runtime
 * failure (a store that cannot be reached, a conflict, a backup that failed), 2 for a mistake in how the
 * command was called or configured (UsageError).
 */
export class CommandFailure extends Error {
  override name = 'CommandFailure'
  readonly exitCode: 1 | 2

  constructor (message: string, exitCode: 1 | 2 = 1) {
    super(message)
    this.exitCode = exitCode
  }
}

/** A bad flag, path or URL: exit code 2. */
export class UsageError extends CommandFailure {
  override name = 'UsageError'

  constructor (message: string) {
    super(message, 2)
  }
}

/** Bad input to a data command (a line of an import, a conflict, a non-empty copy target): exit code 1. */
export class InputError extends CommandFailure {
  override name = 'InputError'
}
