// The system's and the network's error codes in words: a failure is one line, never errno text alone.
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a file stands where a folder is needed',
  EEXIST: 'it exists already',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  ECONNREFUSED: 'connection refused (is the server running, on that host and port?)',
  ENOTFOUND: 'no such host',
  ETIMEDOUT: 'the connection timed out'
}

/** `PATH: reason` (or the reason alone) for a system error whose code is known, with `more` codes beside; else undefined. */
export function describeSystemError (error: unknown, more: Record<string, string> = {}): string | undefined {
  const { code, path } = error as { code?: unknown, path?: unknown }
  const words = typeof code === 'string' ? more[code] ?? REASONS[code] : undefined
  if (words === undefined) return undefined
  return typeof path === 'string' ? `${path}: ${words}` : words
}
