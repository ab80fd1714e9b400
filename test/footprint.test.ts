import { strict as assert } from 'node:assert'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

// Built and exercised in a process of its own: the test runner's process has loaded much else.
const script = `
const { buildApp } = await import('./src/app.ts')
const { loadConfig } = await import('./src/config.ts')
const app = await buildApp(loadConfig({ logLevel: 'silent', database: process.argv[1] }))
await app.ready()
const health = await app.inject({ method: 'GET', url: '/healthz' })
const unauthenticated = await app.inject({ method: 'POST', url: '/plants', payload: { id: 1, name: 'Fern' } })
await app.close()
console.log(JSON.stringify({
  statuses: [health.statusCode, unauthenticated.statusCode],
  bundledUndici: process.moduleLoadList.some((name) => name.includes('deps/undici'))
}))
`

test('the server never loads Node\'s bundled fetch (undici): an ESM import of node:http would, for http.WebSocket', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-footprint-'))
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, `sqlite:${join(dir, 'plants.db')}`],
      { cwd: join(import.meta.dirname, '..') })
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { statuses: number[], bundledUndici: boolean }
    assert.deepEqual(result.statuses, [200, 401])
    assert.equal(result.bundledUndici, false)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
