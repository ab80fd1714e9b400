import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/config.js'

describe('--database-password-file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'plantstore-password-'))
  const secret = (text: string) => {
    const file = join(folder, `secret-${Math.random().toString(36).slice(2)}`)
    writeFileSync(file, text, { mode: 0o600 })
    return file
  }

  test('puts the file\'s one line into a PostgreSQL URL without a password, encoded, without its newline', () => {
    const config = loadConfig({ database: 'postgres://plantstore@db:5432/plantstore', databasePasswordFile: secret('p@ss:w/rd %\n') })
    assert.equal(config.database.kind, 'postgres')
    const url = new URL(config.database.kind === 'postgres' ? config.database.url : '')
    assert.equal(decodeURIComponent(url.password), 'p@ss:w/rd %')
    assert.equal(url.username, 'plantstore')
    assert.equal(url.host, 'db:5432')
  })

  for (const [label, database, file, message] of [
    ['a SQLite store', 'sqlite:./plants.db', () => secret('x'), /only a postgres:\/\/ database takes a password file/],
    ['a URL with a password', 'postgres://u:p@db/x', () => secret('x'), /has a password already/],
    ['a file that is not there', 'postgres://u@db/x', () => join(folder, 'missing'), /cannot read it \(ENOENT\)/],
    ['an empty file', 'postgres://u@db/x', () => secret('\n'), /the file is empty/]
  ] as const) {
    test(`refuses ${label}, naming the setting`, () => {
      assert.throws(() => loadConfig({ database, databasePasswordFile: file() }), (error: unknown) =>
        error instanceof ConfigError && /--database-password-file \(PLANTSTORE_DATABASE_PASSWORD_FILE\)/.test(error.message) && message.test(error.message))
    })
  }
})
