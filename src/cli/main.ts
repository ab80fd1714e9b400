import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { ConfigError } from '../config/config.js'
import { StoreOpenError } from '../store/errors.js'
import { TokenNameTaken } from '../store/store.js'
import { registerData } from './data.js'
import { explainFailure } from './failures.js'
import { registerMigrate } from './migrate.js'
import { checkRequiredOptions } from './options.js'
import { registerServe } from './serve.js'
import { registerTokens } from './tokens.js'
import { registerWebhooks } from './webhooks.js'
import { CommandFailure } from './command-errors.js'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

// Each command loads what it uses when it runs (the server only for serve, a driver only for its database).
// Commander's own errors are thrown, not printed, so that every failure is one line written below;
// set before the commands are added, since they inherit it.
const program = new Command('plantstore')
  .description('The OpenAPI Plant Store service')
  .version(version, '-V, --version', 'print the version')
  .exitOverride()
  .configureOutput({ outputError: () => {} })
registerServe(program)
registerMigrate(program)
registerTokens(program)
registerWebhooks(program)
registerData(program)
checkRequiredOptions(program)

/** The exit code: 0 for help and the version, 2 for usage and configuration, 1 for what failed at run time. */
function exitCode (error: unknown): number {
  if (error instanceof CommanderError) return ['commander.helpDisplayed', 'commander.version'].includes(error.code) ? 0 : 2
  if (error instanceof ConfigError) return 2
  if (error instanceof StoreOpenError) return error.misconfigured ? 2 : 1
  if (error instanceof CommandFailure) return error.exitCode
  return 1
}

// A reader that stopped reading (`plantstore tokens list | head`) ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

program.parseAsync().catch((error: unknown) => {
  const code = exitCode(error)
  // Help and the version are already printed; `plantstore` or a group alone printed its help.
  const printed = error instanceof CommanderError && (code === 0 || error.code === 'commander.help')
  if (!printed) {
    const known = error instanceof CommanderError || error instanceof ConfigError || error instanceof CommandFailure ||
      error instanceof TokenNameTaken || error instanceof StoreOpenError
    process.stderr.write(`plantstore: ${known ? oneLine((error as Error).message) : explainFailure(error)}\n`)
  }
  process.exit(code)
})

/** Commander's messages start with "error: " and may add a hint on a second line. */
function oneLine (message: string): string {
  return message.replace(/^error: /, '').split('\n').map((line) => line.trim()).filter(Boolean).join(' ')
}
