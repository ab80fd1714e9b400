import { escapeUnprintable, escapeUnprintableJson } from '../lib/plain-text.js'
import { parseDatabaseUrl, SETTINGS } from '../config/config.js'
import { openStore } from '../store/open-store.js'
import { StoreOpenError } from '../store/errors.js'
import { StoreMissing } from '../store/store.js'
import type { Store } from '../store/store.js'
import { CommandFailure, UsageError } from './command-errors.js'

/** A command's --database and --database-password-file (or their PLANTSTORE_* twins). */
export interface DatabaseChoice { database?: string, databasePasswordFile?: string }

interface OpenOptions {
  /** The flag that named the URL, for the error line (`--from`, `--to`). */
  flag?: string
  /** Only migrate and a copy's target create a store; every other command refuses a missing SQLite file. */
  create?: boolean
}

/**
 * Opens the store a command names (or the default). A bad URL or a missing SQLite file is a usage
 * error (exit 2); a store that cannot be reached is a runtime failure (exit 1).
 */
async function openForCommand (target: DatabaseChoice | string | undefined, { flag = '--database', create = false }: OpenOptions = {}): Promise<Store> {
  const { database: url, databasePasswordFile: passwordFile } = typeof target === 'object' ? target : { database: target, databasePasswordFile: undefined }
  const rename = (message: string) => flag === '--database' ? message : message.replace(/--database,? \(?PLANTSTORE_DATABASE_URL\)?/, flag)
  let database
  try {
    database = parseDatabaseUrl(url ?? SETTINGS.database.fallback, { passwordFile })
  } catch (error) {
    throw new UsageError(rename((error as Error).message))
  }
  try {
    return await openStore(database, { create })
  } catch (error) {
    if (error instanceof StoreMissing) throw new UsageError(error.message)
    if (error instanceof StoreOpenError) throw new CommandFailure(rename(error.message), error.misconfigured ? 2 : 1)
    throw error
  }
}

/** Opens the store a command's --database names (or the default), runs `use`, and closes it. */
export async function withStore<T> (database: DatabaseChoice | string | undefined, use: (store: Store) => Promise<T>, options?: OpenOptions): Promise<T> {
  const store = await openForCommand(database, options)
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

/** Prints one JSON value on a line; bigints (plant ids) as exact strings. */
export function printJson (value: unknown): void {
  process.stdout.write(`${escapeUnprintableJson(JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? v.toString() : v))}\n`)
}

/** Prints rows under a header, in columns; control and bidirectional characters are written as escapes, never sent to the terminal. */
export function printTable (header: string[], given: string[][]) {
  const rows = given.map((row) => row.map(escapeUnprintable))
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
  }
}
