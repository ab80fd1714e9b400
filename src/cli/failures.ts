import { describeSystemError } from '../lib/system-errors.js'

/** One line for a failure that is not one of ours: listening, files, or else its message. */
export function explainFailure (error: unknown): string {
  const { code, message, address, port } = error as NodeJS.ErrnoException & { address?: string, port?: number }
  if (code === 'EADDRINUSE') return `cannot listen on ${address}:${port}: the port is already in use (--port, PLANTSTORE_PORT)`
  if (code === 'EACCES' && port !== undefined) return `cannot listen on ${address}:${port}: permission denied (--port, PLANTSTORE_PORT)`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${address ?? 'that host'}: no such local address (--host, PLANTSTORE_HOST)`
  return describeSystemError(error) ?? (message ?? String(error)).split('\n')[0]!
}
