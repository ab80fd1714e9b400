import type { Command } from 'commander'
import { DEFAULT_SCOPES, hashToken, SCOPES, tokenState } from '../store/store.js'
import type { Scope } from '../store/store.js'
import { generateToken } from '../auth/tokens.js'
import { parseDuration } from '../config/durations.js'
import { databaseOption, databasePasswordFileOption } from './options.js'
import { printJson, printTable, withStore } from './store-access.js'
import { CommandFailure, UsageError } from './command-errors.js'
import { escapeUnprintable, firstUnprintable } from '../lib/plain-text.js'

interface CreateOptions { name: string, scope?: string[], expiresIn?: string, database?: string, databasePasswordFile?: string }

export function registerTokens (program: Command) {
  const tokens = program.command('tokens').description('manage API tokens')

  tokens.command('create')
    .description('create a token and print it, alone, on stdout (it is never shown again)')
    .requiredOption('--name <name>', 'a name to recognise the token by (unique)')
    .option('--scope <scope>', `a scope to grant, repeatable: ${SCOPES.join(', ')} (default ${DEFAULT_SCOPES.join(' and ')})`,
      (value: string, previous: string[] = []) => [...previous, value])
    .option('--expires-in <duration>', 'lifetime such as 30d, 12h, 90m (default: never expires)')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (options: CreateOptions) => {
      const scopes = options.scope ?? [...DEFAULT_SCOPES]
      const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope))
      if (unknown !== undefined) throw new UsageError(`unknown --scope ${unknown}; expected ${SCOPES.join(', ')}`)
      if (options.name.trim() === '') throw new UsageError('--name must not be empty')
      const unprintable = firstUnprintable(options.name)
      if (unprintable !== undefined) throw new UsageError(`--name must not contain control, bidirectional or zero-width characters (${unprintable.codePoint} at character ${unprintable.at})`)
      let expiresAt: Date | null = null
      if (options.expiresIn !== undefined) {
        const ms = parseDuration(options.expiresIn)
        if (ms === undefined) throw new UsageError(`invalid --expires-in ${options.expiresIn}; expected a number and s, m, h, d or w, such as 30d`)
        expiresAt = new Date(Date.now() + ms)
      }
      const token = generateToken()
      await withStore(options, (store) => store.tokens.create({
        name: options.name, hash: hashToken(token), scopes: [...new Set(scopes)] as Scope[], expiresAt
      }))
      process.stdout.write(`${token}\n`)
    })

  tokens.command('list')
    .description('list tokens (never the tokens themselves: only their hashes are stored)')
    .option('--json', 'one JSON array')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (options: { json?: boolean, database?: string, databasePasswordFile?: string }) => {
      const list = await withStore(options, (store) => store.tokens.list())
      if (options.json === true) return printJson(list.map((token) => ({ ...token, state: tokenState(token) })))
      const rows = list.map((t) => [String(t.id), t.name, t.scopes.join(','), tokenState(t),
        t.createdAt.toISOString(), t.expiresAt?.toISOString() ?? '-', t.lastUsedAt?.toISOString() ?? '-'])
      printTable(['ID', 'NAME', 'SCOPES', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED'], rows)
    })

  tokens.command('revoke')
    .description('revoke a token by its exact name, or by --id; it is refused from the next request on, its streams end, and its webhook subscriptions are disabled')
    .argument('[name]', 'the token\'s exact name')
    .option('--id <id>', 'the token\'s id, as tokens list shows it')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (name: string | undefined, options: { id?: string, database?: string, databasePasswordFile?: string }) => {
      const id = options.id
      if ((name === undefined) === (id === undefined)) throw new UsageError('name one token: its exact name, or --id N')
      if (id !== undefined && !/^[1-9]\d{0,14}$/.test(id)) throw new UsageError(`invalid --id ${id}: expected a token id (a positive integer)`)
      // A name of digits could mean an id: refuse rather than guess (tokens list shows both).
      if (name !== undefined && /^\d+$/.test(name)) throw new UsageError(`"${name}" could be a name or an id; say --id ${name} for the id`)
      const revoked = await withStore(options, (store) => id !== undefined ? store.tokens.revokeById(Number(id)) : store.tokens.revokeByName(name!))
      if (revoked === undefined) throw new CommandFailure(id !== undefined ? `no token with id ${id}` : `no token named ${escapeUnprintable(JSON.stringify(name))}`)
      process.stdout.write(`revoked token ${revoked.id} (${escapeUnprintable(revoked.name)})\n`)
    })
}
