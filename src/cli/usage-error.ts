/** A mistake in how a command was called: printed as one line, exit code 1. */
export class UsageError extends Error {}
