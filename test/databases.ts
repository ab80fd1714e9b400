import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { parseDatabaseUrl } from '../src/config/config.js'
import { openStore } from '../src/store/open-store.js'
import type { Store } from '../src/store/store.js'

const postgresUrl = process.env.PLANTSTORE_TEST_POSTGRES_URL
const FRESH_POSTGRES = 'postgres:fresh'

/**
 * The databases every store and route test runs on: SQLite always, PostgreSQL whenever
 * PLANTSTORE_TEST_POSTGRES_URL is set (CI sets it). Values are resolved by freshDatabase.
 */
export const DATABASES: Record<string, string> = {
  sqlite: 'sqlite::memory:',
  ...(postgresUrl !== undefined && { postgres: FRESH_POSTGRES })
}

/** An SQLite file of its own for each test, where :memory: would not do (a file's pages are read on a thread of their own). */
export const SQLITE_FILE = 'sqlite:fresh-file'
let files: string | undefined
let fileCount = 0

/** A database URL of its own for one test: PostgreSQL gets a new empty schema on the test server, SQLITE_FILE a new file. */
export async function freshDatabase (url: string): Promise<string> {
  if (url === SQLITE_FILE) {
    if (files === undefined) {
      const folder = mkdtempSync(join(tmpdir(), 'plantstore-files-'))
      process.on('exit', () => rmSync(folder, { recursive: true, force: true }))
      files = folder
    }
    return `sqlite:${join(files, `${++fileCount}`, 'plants.db')}`
  }
  if (url !== FRESH_POSTGRES) return url
  if (postgresUrl === undefined) throw new Error('PLANTSTORE_TEST_POSTGRES_URL is not set')
  const schema = `test_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    await client.query(`CREATE SCHEMA ${schema}`)
  } finally {
    await client.end()
  }
  const fresh = new URL(postgresUrl)
  fresh.searchParams.set('options', `-c search_path=${schema}`)
  return fresh.href
}

/** Opens the store at `url` for `use`, then closes it (tests that check what a command left behind). */
export async function withStore<T> (url: string, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(parseDatabaseUrl(url))
  try {
    return await use(store)
  } finally {
    await store.close()
  }
}
