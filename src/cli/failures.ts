// Errors of the system, in words: a command's failure is one line naming what is wrong, never errno text alone.
const FILE_REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a file stands where a folder is needed',
  EEXIST: 'it exists already',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files'
}

/** One line for a failure that is not one of ours: listening, files, or else its message. */
export function explainFailure (error: unknown): string {
  const { code, message, address, port, path } = error as NodeJS.ErrnoException & { address?: string, port?: number }
  if (code === 'EADDRINUSE') return `cannot listen on ${address}:${port}: the port is already in use (--port, PLANTSTORE_PORT)`
  if (code === 'EACCES' && port !== undefined) return `cannot listen on ${address}:${port}: permission denied (--port, PLANTSTORE_PORT)`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${address ?? 'that host'}: no such local address (--host, PLANTSTORE_HOST)`
  const reason = code === undefined ? undefined : FILE_REASONS[code]
  if (reason !== undefined && path !== undefined) return `${path}: ${reason}`
  return (message ?? String(error)).split('\n')[0]!
}
