#!/usr/bin/env node
import { Command } from 'commander'
import { ConfigError } from '../config.js'
import { TokenNameTaken } from '../store/store.js'
import { registerMigrate } from './migrate.js'
import { registerServe } from './serve.js'
import { registerTokens } from './tokens.js'
import { UsageError } from './usage-error.js'

const program = new Command('plantstore')
  .description('The OpenAPI Plant Store service')
  .showHelpAfterError('(add --help for usage)')
registerServe(program)
registerMigrate(program)
registerTokens(program)

/** Start-up and command failures: one line naming what is wrong, exit code 1. */
function explain (error: unknown): string {
  if (error instanceof ConfigError || error instanceof UsageError || error instanceof TokenNameTaken) return error.message
  const { code, message, address, port } = error as NodeJS.ErrnoException & { address?: string, port?: number }
  if (code === 'EADDRINUSE') return `cannot listen on ${address}:${port}: the port is already in use (--port, PLANTSTORE_PORT)`
  if (code === 'EACCES' && port !== undefined) return `cannot listen on ${address}:${port}: permission denied (--port, PLANTSTORE_PORT)`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${address ?? 'that host'}: no such local address (--host, PLANTSTORE_HOST)`
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return `cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${message}`
  if (code === 'EACCES' || code === 'ENOTDIR' || code === 'EROFS') return `cannot open the database (--database, PLANTSTORE_DATABASE_URL): ${message}`
  return message
}

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`plantstore: ${explain(error)}\n`)
  process.exit(1)
})
