import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { cleanEnv, createPlant, executable, newDatabase, newDatabaseUrl, run, serve, stop } from '../executable.js'
import { waitFor } from '../receiver.js'

// A process starting on a loaded machine can take seconds.
const STARTUP_MS = 30_000

describe('the plantstore executable', () => {
  test('tokens create prints the token alone; serve keeps plants across a SIGTERM and restart', async () => {
    const database = newDatabase()
    const created = await run(['tokens', 'create', '--name', 'ci', '--database', database])
    assert.equal(created.code, 0, created.stderr)
    assert.match(created.stdout, /^ps_[A-Za-z0-9_-]{43}\n$/)
    const token = created.stdout.trim()

    const first = await serve(database)
    assert.doesNotMatch(first.stderr(), /first API token/, 'a store with a token gets no new one')
    const res = await createPlant(first.url, token, '{"id": 9223372036854775807, "name": "Fern", "tag": "green"}')
    assert.equal(res.status, 200)
    assert.match(await res.text(), /"id":9223372036854775807[,}]/)
    assert.equal(await stop(first), 0, 'SIGTERM drains and exits 0')

    const second = await serve(database)
    const replay = await createPlant(second.url, token, '{"id": 9223372036854775807, "name": "Fern", "tag": "green"}')
    assert.equal(replay.status, 200, 'the same plant is an identical replay: it survived the restart')
    const different = await createPlant(second.url, token, '{"id": 9223372036854775807, "name": "Ivy"}')
    assert.equal(different.status, 409)
    assert.equal(await stop(second), 0)
  })

  test('the first serve on an empty store, stderr not a terminal: the token goes to an owner-only file the log names, never to a stream', async () => {
    const database = newDatabase()
    const first = await serve(database)
    await waitFor(() => first.stdout().includes('first API token written'), STARTUP_MS, 'the log line naming the token file')
    const file = /"file":"([^"]+)"[^\n]*first API token written/.exec(first.stdout())?.[1]
    assert.ok(file !== undefined, first.stdout())
    assert.equal(file, join(dirname(database.slice('sqlite:'.length)), 'first-token'), 'beside the SQLite store')
    assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by its owner only')
    const text = readFileSync(file, 'utf8')
    const token = /\n {2}(ps_[A-Za-z0-9_-]{43})\n/.exec(text)?.[1]
    assert.ok(token, text)
    assert.doesNotMatch(first.stdout() + first.stderr(), /ps_[A-Za-z0-9_-]{43}/, 'no token in the log or on stderr')
    const curl = text.split('\n').find((line) => line.trim().startsWith('curl '))
    assert.ok(curl?.includes(first.url) && curl.includes(`Bearer ${token}`), curl)
    const body = /-d '([^']+)'/.exec(curl!)![1]!
    assert.equal((await createPlant(first.url, token, body)).status, 200, 'the written curl line works')
    await stop(first)
    const second = await serve(database)
    assert.doesNotMatch(second.stdout() + second.stderr(), /ps_|first API token/)
    await stop(second)
    const list = await run(['tokens', 'list', '--json', '--database', database])
    assert.deepEqual(JSON.parse(list.stdout).map((t: { name: string }) => t.name), ['default'])
    assert.deepEqual(Object.keys(JSON.parse(list.stdout)[0]).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'revokedAt', 'scopes', 'state'],
      'the list shows no token and no hash')
  })

  test('the first serve with a terminal prints the token there, and writes no file', async () => {
    const database = newDatabaseUrl()
    // script(1) gives the command a pseudo-terminal. The server is stopped once the token is on it
    // (timeout(1) only stops one the test left behind); the group holds script, timeout and the server.
    const command = `timeout -s TERM 120 ${process.execPath} ${executable} serve --port 0 --database ${database}`
    const terminal = spawn('script', ['-qec', command, '/dev/null'], { env: cleanEnv, detached: true })
    let stdout = ''
    terminal.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    const exited = new Promise((resolve) => terminal.on('exit', resolve))
    try {
      await waitFor(() => /\n {2}ps_[A-Za-z0-9_-]{43}\r?\n/.test(stdout) && stdout.includes('Server listening at'), STARTUP_MS, 'the token on the terminal')
    } finally {
      process.kill(-terminal.pid!, 'SIGTERM')
      await exited
    }
    assert.match(stdout, /\n {2}ps_[A-Za-z0-9_-]{43}\r?\n/)
    assert.equal(existsSync(join(dirname(database.slice('sqlite:'.length)), 'first-token')), false)
  })

  test('a token revoked from the CLI is refused at once by a running server', async () => {
    const database = newDatabase()
    const token = (await run(['tokens', 'create', '--name', 'temp', '--database', database])).stdout.trim()
    const server = await serve(database)
    assert.equal((await createPlant(server.url, token, { id: 1, name: 'A' })).status, 200)
    const revoked = await run(['tokens', 'revoke', 'temp', '--database', database])
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.equal((await createPlant(server.url, token, { id: 2, name: 'B' })).status, 401)
    const table = await run(['tokens', 'list', '--database', database])
    assert.match(table.stdout, /temp\s+plants:read,plants:write\s+revoked/)
    await stop(server)
  })

  test('serve --workers 2 runs two processes on one port, and SIGTERM stops them all with exit 0', async () => {
    const database = newDatabase()
    const token = (await run(['tokens', 'create', '--name', 'workers', '--database', database])).stdout.trim()
    const server = await serve(database, ['--workers', '2'])
    await waitFor(() => (server.stdout().match(/Server listening at/g) ?? []).length === 2, STARTUP_MS, 'both workers listening')
    for (let id = 1; id <= 40; id++) assert.equal((await createPlant(server.url, token, { id, name: 'x' })).status, 200)
    // Log lines are written in 4 KiB blocks, and at least every second.
    const pids = () => new Set([...server.stdout().matchAll(/"pid":(\d+)[^\n]*"msg":"request completed"/g)].map((m) => m[1]))
    await waitFor(() => pids().size === 2, STARTUP_MS, 'two worker processes')
    assert.equal(pids().size, 2, 'both workers answered requests')
    assert.equal(await stop(server), 0)
  })

  test('tokens get plants:read and plants:write by default, webhooks:manage only when asked', async () => {
    const database = newDatabase()
    await run(['tokens', 'create', '--name', 'plain', '--database', database])
    const asked = await run(['tokens', 'create', '--name', 'hooks', '--scope', 'webhooks:manage', '--database', database])
    assert.equal(asked.code, 0, asked.stderr)
    const list = JSON.parse((await run(['tokens', 'list', '--json', '--database', database])).stdout) as Array<{ name: string, scopes: string[] }>
    assert.deepEqual(list.map((t) => [t.name, t.scopes]), [['plain', ['plants:read', 'plants:write']], ['hooks', ['webhooks:manage']]])
  })

  test('settings come from PLANTSTORE_* variables too', async () => {
    const database = newDatabase()
    const viaEnv = await run(['tokens', 'create', '--name', 'env'], { PLANTSTORE_DATABASE_URL: database })
    assert.equal(viaEnv.code, 0, viaEnv.stderr)
    const list = await run(['tokens', 'list', '--json', '--database', database])
    assert.equal(JSON.parse(list.stdout)[0].name, 'env')
  })

  for (const [label, args, env, pattern] of [
    ['an unknown flag', ['serve', '--colour', 'red'], {}, /unknown option '--colour'/],
    ['a bad port', ['serve', '--port', 'eighty'], {}, /--port \(PLANTSTORE_PORT\) "eighty"/],
    ['a bad port variable', ['serve'], { PLANTSTORE_PORT: '70000' }, /PLANTSTORE_PORT/],
    ['a bad database URL', ['serve', '--database', 'mysql://x'], {}, /--database \(PLANTSTORE_DATABASE_URL\)/],
    ['an unusable database path', ['serve', '--database', 'sqlite:/etc/hostname/plants.db'], {}, /cannot open the database/],
    ['an unknown scope', ['tokens', 'create', '--name', 'x', '--scope', 'admin', '--database', 'sqlite::memory:'], {}, /unknown --scope admin/],
    ['a password file beside a URL with a password', ['migrate', '--database', 'postgres://u:p@127.0.0.1:1/x', '--database-password-file', '/etc/hostname'], {}, /--database-password-file \(PLANTSTORE_DATABASE_PASSWORD_FILE\) "\/etc\/hostname": the database URL has a password already/],
    ['a bad lifetime', ['tokens', 'create', '--name', 'x', '--expires-in', 'soon', '--database', 'sqlite::memory:'], {}, /invalid --expires-in soon/]
  ] as const) {
    test(`${label} stops with one clear line and exit code 2 (usage or configuration)`, async () => {
      const result = await run([...args], env)
      assert.equal(result.code, 2)
      const lines = result.stderr.trim().split('\n')
      assert.equal(lines.length, 1, result.stderr)
      assert.match(lines[0]!, pattern)
    })
  }

  test('a port in use stops with one clear line and exit code 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    const result = await run(['serve', '--port', String(port), '--database', newDatabase()])
    blocker.close()
    assert.equal(result.code, 1)
    assert.match(result.stderr.trim(), /^plantstore: cannot listen on 127\.0\.0\.1:\d+: the port is already in use/)
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
  })
})
