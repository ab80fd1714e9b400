import { parseDatabaseUrl, SETTINGS } from '../config.js'
import { openStore } from '../store/open-store.js'
import type { Store } from '../store/store.js'

/** Opens the store a command's --database names (or the default), runs `use`, and closes it. */
export async function withStore<T> (database: string | undefined, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(parseDatabaseUrl(database ?? SETTINGS.database[2]))
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}

/** Prints one JSON value on a line; bigints (plant ids) as exact strings. */
export function printJson (value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? v.toString() : v)}\n`)
}

/** Prints rows under a header, in columns. */
export function printTable (header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  for (const row of [header, ...rows]) {
    process.stdout.write(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`)
  }
}
