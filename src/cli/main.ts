#!/usr/bin/env -S node --max-semi-space-size=8
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { ConfigError } from '../config.js'
import { StoreOpenError } from '../store/open-store.js'
import { TokenNameTaken } from '../store/store.js'
import { registerData } from './data.js'
import { registerMigrate } from './migrate.js'
import { registerServe } from './serve.js'
import { registerTokens } from './tokens.js'
import { registerWebhooks } from './webhooks.js'
import { UsageError } from './usage-error.js'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

// Each command loads what it uses when it runs (the server only for serve, a driver only for its database).
const program = new Command('plantstore')
  .description('The OpenAPI Plant Store service')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError('(add --help for usage)')
registerServe(program)
registerMigrate(program)
registerTokens(program)
registerWebhooks(program)
registerData(program)

/** Start-up and command failures: one line naming what is wrong. */
function explain (error: unknown): string {
  if (error instanceof ConfigError || error instanceof UsageError || error instanceof TokenNameTaken ||
    error instanceof StoreOpenError) return error.message
  const { code, message, address, port } = error as NodeJS.ErrnoException & { address?: string, port?: number }
  if (code === 'EADDRINUSE') return `cannot listen on ${address}:${port}: the port is already in use (--port, PLANTSTORE_PORT)`
  if (code === 'EACCES' && port !== undefined) return `cannot listen on ${address}:${port}: permission denied (--port, PLANTSTORE_PORT)`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${address ?? 'that host'}: no such local address (--host, PLANTSTORE_HOST)`
  return message
}

program.parseAsync().catch((error: unknown) => {
  // commander has printed its own usage errors already.
  if (!String((error as { code?: unknown }).code).startsWith('commander.')) process.stderr.write(`plantstore: ${explain(error)}\n`)
  process.exit((error as { exitCode?: number }).exitCode ?? 1)
})
