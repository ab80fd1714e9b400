import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { cleanEnv, executable, newDatabase, newDatabaseUrl, run, workdir } from '../executable.js'
import { withStore } from '../databases.js'
import { generateToken } from '../../src/auth/tokens.js'
import { hashToken } from '../../src/store/store.js'

const tokensOf = async (database: string) =>
  JSON.parse((await run(['tokens', 'list', '--json', '--database', database])).stdout) as Array<{ id: number, name: string, state: string }>

describe('plantstore tokens, against a hostile token manager', () => {
  test('revoke takes an exact name or --id: "1-intruder" revokes that token only; digits alone are refused (exit 2)', async () => {
    const database = newDatabase()
    for (const name of ['default', '1-intruder', '2']) assert.equal((await run(['tokens', 'create', '--name', name, '--database', database])).code, 0)
    const byName = await run(['tokens', 'revoke', '1-intruder', '--database', database])
    assert.equal(byName.code, 0, byName.stderr)
    assert.deepEqual((await tokensOf(database)).map((token) => [token.name, token.state]), [['default', 'active'], ['1-intruder', 'revoked'], ['2', 'active']])

    const ambiguous = await run(['tokens', 'revoke', '2', '--database', database])
    assert.equal(ambiguous.code, 2)
    assert.equal(ambiguous.stderr, 'plantstore: "2" could be a name or an id; say --id 2 for the id\n')
    const byId = await run(['tokens', 'revoke', '--id', '1', '--database', database])
    assert.equal(byId.code, 0, byId.stderr)
    assert.equal(byId.stdout, 'revoked token 1 (default)\n')
    assert.equal((await run(['tokens', 'revoke', '--database', database])).code, 2, 'nothing named')
    assert.equal((await run(['tokens', 'revoke', 'x', '--id', '3', '--database', database])).code, 2, 'both named')
    assert.equal((await run(['tokens', 'revoke', 'nobody', '--database', database])).code, 1)
  })

  test('control and bidirectional characters: refused in a new name, and printed as escapes by tokens list', async () => {
    const database = newDatabase()
    const refused = await run(['tokens', 'create', '--name', 'evil\u001b[2J', '--database', database])
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /U\+001B at character 5/)
    // A name stored before the rule (or by another tool) still never reaches the terminal as it is.
    await withStore(database, (store) => store.tokens.create({ name: 'old\u001b[2J\u202eevil\r\nrow', hash: hashToken(generateToken()), scopes: ['plants:read'], expiresAt: null }))
    const table = await run(['tokens', 'list', '--database', database])
    // eslint-disable-next-line no-control-regex -- what must not reach the terminal
    assert.doesNotMatch(table.stdout, /[\u001b\u202e\r]/)
    assert.match(table.stdout, /old\\u\{1b\}\[2J\\u\{202e\}evil\\u\{d\}\\u\{a\}row/)
    const json = await run(['tokens', 'list', '--json', '--database', database])
    // eslint-disable-next-line no-control-regex -- what must not reach the terminal
    assert.doesNotMatch(json.stdout, /[\u001b\u202e\r]/)
    assert.equal(JSON.parse(json.stdout)[0].name, 'old\u001b[2J\u202eevil\r\nrow', 'the JSON is exact, with escapes')
  })

  test('tokens list into a pipe closed early ends quietly', async () => {
    const database = newDatabase()
    for (let i = 0; i < 3; i++) await run(['tokens', 'create', '--name', `t${i}`, '--database', database])
    await withStore(database, async (store) => {
      for (let i = 0; i < 3000; i++) await store.tokens.create({ name: `bulk-${i}`, hash: hashToken(generateToken()), scopes: ['plants:read'], expiresAt: null })
    })
    const result = await new Promise<{ code: number | null, stderr: string }>((resolve) => {
      execFile('sh', ['-c', `"${process.execPath}" "${executable}" tokens list --database ${database} | head -n 1`],
        { env: cleanEnv }, (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stderr }))
    })
    assert.equal(result.stderr, '', 'no EPIPE, no stack')
  })

  test('a new store, its -wal and -shm, and a backup are owner-only (0600); a backup is one file', async () => {
    const url = newDatabaseUrl()
    assert.equal((await run(['migrate', '--database', url])).code, 0)
    const path = url.slice('sqlite:'.length)
    await withStore(url, async (store) => {
      await store.plants.create({ id: 1n, name: 'Fern' })
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        assert.equal(statSync(file).mode & 0o777, 0o600, file)
      }
    })
    const backup = join(workdir, 'backup-one-file.db')
    const result = await run(['backup', backup, '--database', url])
    assert.equal(result.code, 0, result.stderr)
    assert.equal(statSync(backup).mode & 0o777, 0o600)
    assert.equal(existsSync(`${backup}-wal`), false)
    assert.equal(existsSync(`${backup}-shm`), false)
  })
})
