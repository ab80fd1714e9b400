import { strict as assert } from 'node:assert'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Runs a module script under tsx in a process of its own, from the project's root; what its last line of output says, as JSON. */
async function runScript<T> (script: string, { nodeArgs = [], args = [] }: { nodeArgs?: string[], args?: string[] } = {}): Promise<T> {
  const { stdout } = await run(process.execPath, [...nodeArgs, '--import', 'tsx', '--input-type=module', '-e', script, ...args],
    { cwd: join(import.meta.dirname, '../..') })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T
}

// Built and exercised in a process of its own: the test runner's process has loaded much else.
const script = `
const { buildApp } = await import('./src/http/app.ts')
const { loadConfig } = await import('./src/config/config.ts')
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
    const result = await runScript<{ statuses: number[], bundledUndici: boolean }>(script, { args: [`sqlite:${join(dir, 'plants.db')}`] })
    assert.deepEqual(result.statuses, [200, 401])
    assert.equal(result.bundledUndici, false)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// The young generation's size in a worker thread and in the main thread, in a process started as
// `plantstore` is (with --max-semi-space-size=8): the largest each reached while allocating as under load.
const youngGenerations = `
const { spawnWorker } = await import('./src/lib/worker-thread.ts')
const { churn } = await import('./test/fixtures/churn.ts')
const thread = spawnWorker(new URL('./test/fixtures/young-generation.ts', 'file://' + process.cwd() + '/').href, 'young-generation',
  { resourceLimits: { maxYoungGenerationSizeMb: 8 } })
const threadBytes = await new Promise((resolve, reject) => { thread.once('message', resolve); thread.once('error', reject) })
await thread.terminate()
const mainBytes = churn()
console.log(JSON.stringify({ threadMiB: threadBytes / 2 ** 20, mainMiB: mainBytes / 2 ** 20 }))
`

test('a worker thread gets the young generation its resourceLimits ask for; the main thread keeps --max-semi-space-size', async () => {
  const { threadMiB, mainMiB } = await runScript<{ threadMiB: number, mainMiB: number }>(youngGenerations, { nodeArgs: ['--max-semi-space-size=8'] })
  // 8 MiB asked: two semi-spaces of at most 4 MiB; the flag alone would have made them 8 MiB each, 16
  // at rest and more with pages in flight. The largest size seen during the churn includes pages in
  // flight during a scavenge (12.5 and 14.75 MiB on a busy machine), so the bound is the flag's size.
  assert.ok(threadMiB < 16, `the thread's young generation is ${threadMiB} MiB`)
  assert.ok(mainMiB > 8, `the main thread's young generation is ${mainMiB} MiB`)
})

// The undici modules a process has loaded once it has made a sender and sent one delivery with it.
const senderModules = `
const { createServer } = await import('node:http')
const { createRequire } = await import('node:module')
const { Sender } = await import('./src/webhooks/sender.ts')
const receiver = createServer((req, res) => { req.resume(); req.on('end', () => res.end()) })
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const sender = new Sender('http://127.0.0.1:' + receiver.address().port + '/hook', { timeoutMs: 5000, connections: 1, publicOnly: false })
const outcome = await sender.send({ messageId: 'msg_1', secrets: ['whsec_' + Buffer.from('k'.repeat(24)).toString('base64')], payload: '{"id":1,"name":"Fern"}' })
await sender.close()
receiver.close()
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/node_modules/undici/'))
console.log(JSON.stringify({ status: outcome.status, loaded: loaded.map((path) => path.slice(path.indexOf('/node_modules/undici/') + 21)) }))
`

test('a webhook sender loads undici\'s connection pool only, not its fetch, WebSocket, cache or mocks', async () => {
  const { status, loaded } = await runScript<{ status: number, loaded: string[] }>(senderModules)
  assert.equal(status, 200)
  assert.ok(loaded.includes('lib/dispatcher/pool.js'), loaded.join(', '))
  assert.deepEqual(loaded.filter((path) => path === 'index.js' || /^lib\/(web|cache|mock|interceptor)\//.test(path)), [])
})
