/**
 * A command's failure, printed as one line. `exitCode` 1 is the default (bad input, a conflict, a
 * failure); 2 is a mistake in how a command was called or configured (the data commands use it).
 */
export class UsageError extends Error {
  readonly exitCode: number

  constructor (message: string, exitCode = 1) {
    super(message)
    this.exitCode = exitCode
  }
}

/** Bad input to a data command (a line of an import, a conflict, a non-empty copy target): exit code 1. */
export class InputError extends UsageError {}
