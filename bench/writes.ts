/**
 * npm run bench:writes [-- --rounds N]: writes in part and in bulk, on SQLite (a file) and PostgreSQL (at
 * PLANTSTORE_TEST_POSTGRES_URL), each `plantstore serve` on a new store, stores interleaved in rounds
 * (3 by default), each figure the median over the rounds:
 * - POST /batch of 500 creates from 8 connections for 5 s, after 3 s of the same as warm-up (as every
 *   scenario of bench/run.ts has): plants/s and the p99 of a batch;
 * - a batch of 1,000 operations failing at its last one, against the same batch succeeding: time to
 *   answer (median of 10 each, alternated), and nothing written (the log position does not move);
 * - PATCH ÷ PUT on the same plant, 10 connections for 5 s each, alternated: requests/s.
 * Loopback only. Writes bench/results/writes.md and the table in bench/README.md.
 */
import { parseArgs } from 'node:util'
import { median } from './report.js'
import { generateLoad, startPlantstorePostgres, startPlantstoreSqlite } from './servers.js'
import type { BenchServer } from './servers.js'
import type { Request } from './scenarios.js'
import { writeResults } from './results.js'

const { values: flags } = parseArgs({ options: { rounds: { type: 'string' } } })
const rounds = Number(flags.rounds ?? 3)
const SECONDS = 5
const WARMUP_SECONDS = 3

let nextId = 1
const creates = (count: number) => Array.from({ length: count }, () => `{"method":"POST","path":"/plants","body":{"id":${nextId++},"name":"Batch plant","tag":"bulk"}}`)
const batchBody = (operations: string[]) => `{"operations":[${operations.join(',')}]}`

async function batches (server: BenchServer) {
  const request: Request = { method: 'POST', path: '/batch', setupRequest: (sent: Request) => ({ ...sent, body: batchBody(creates(500)) }) }
  const load = async (duration: number) => {
    const result = await generateLoad({
      url: server.url, connections: 8, duration, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, requests: [request]
    })
    if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${server.name}: ${result.non2xx + result.errors + result.timeouts} failed batches`)
    return result
  }
  // A new server's first seconds (compiling, opening its connections) are not its steady state.
  await load(WARMUP_SECONDS)
  const result = await load(SECONDS)
  return { plantsPerSecond: result.requests.total * 500 / SECONDS, p99: result.latency.p99 }
}

async function send (server: BenchServer, method: string, path: string, body?: string, contentType = 'application/json') {
  const response = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${server.token}`, ...(body !== undefined && { 'content-type': contentType }) }, ...(body !== undefined && { body })
  })
  await response.arrayBuffer()
  return response
}

/** A batch of 1,000 failing at its last operation, and the same succeeding: median ms of each, and whether a failure wrote any of its plants. */
async function failingBatch (server: BenchServer) {
  const failed: number[] = []
  const succeeded: number[] = []
  let wrote = false
  for (let i = 0; i < 10; i++) {
    const first = nextId
    let started = performance.now()
    const failure = await send(server, 'POST', '/batch', batchBody([...creates(999), '{"method":"DELETE","path":"/plants/-1"}']))
    failed.push(performance.now() - started)
    if (failure.status !== 404) throw new Error(`${server.name}: the failing batch answered ${failure.status}`)
    for (const id of [first, first + 500, first + 998]) if ((await send(server, 'GET', `/plants/${id}`)).status !== 404) wrote = true
    started = performance.now()
    const success = await send(server, 'POST', '/batch', batchBody(creates(1000)))
    succeeded.push(performance.now() - started)
    if (success.status !== 200) throw new Error(`${server.name}: the batch answered ${success.status}`)
  }
  return { failedMs: median(failed), succeededMs: median(succeeded), wrote }
}

/** PATCH and PUT of one plant, each under the same load, alternated twice: requests/s of each. */
async function patchAgainstPut (server: BenchServer) {
  await send(server, 'POST', '/plants', '{"id":-7,"name":"Fern"}')
  const load = async (method: 'PUT' | 'PATCH') => {
    let n = 0
    const result = await generateLoad({
      url: server.url,
      connections: 10,
      duration: SECONDS,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': method === 'PUT' ? 'application/json' : 'application/merge-patch+json' },
      requests: [{ method, path: '/plants/-7', setupRequest: (sent) => ({ ...sent, body: `{"name":"Fern ${n++}"}` }) }]
    })
    if (result.non2xx + result.errors > 0) throw new Error(`${server.name}: ${result.non2xx + result.errors} failed ${method}s`)
    return result.requests.average
  }
  const put = [await load('PUT')]
  const patch = [await load('PATCH')]
  patch.push(await load('PATCH'))
  put.push(await load('PUT'))
  return { put: median(put), patch: median(patch) }
}

const stores: Array<[string, () => Promise<BenchServer>]> = [
  ['SQLite', () => startPlantstoreSqlite()],
  ...(process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? [] : [['PostgreSQL', () => startPlantstorePostgres()] as [string, () => Promise<BenchServer>]])
]
const runs: Record<string, Array<Record<string, number>>> = {}
for (let round = 1; round <= rounds; round++) {
  for (const [name, start] of round % 2 === 1 ? stores : [...stores].reverse()) {
    const server = await start()
    try {
      const bulk = await batches(server)
      const failing = await failingBatch(server)
      const edits = await patchAgainstPut(server)
      const figures = {
        ...bulk,
        failedMs: failing.failedMs,
        succeededMs: failing.succeededMs,
        failedRatio: failing.failedMs / failing.succeededMs,
        wrote: failing.wrote ? 1 : 0,
        put: edits.put,
        patch: edits.patch,
        patchRatio: edits.patch / edits.put
      }
      ;(runs[name] ??= []).push(figures)
      process.stderr.write(`round ${round} · ${name}: ${JSON.stringify(figures)}\n`)
    } finally {
      await server.stop()
    }
  }
}

const names = stores.map(([name]) => name)
const med = (name: string, key: string) => median(runs[name]!.map((figures) => figures[key]!))
const rows: Array<[string, (name: string) => string, (name: string) => string]> = [
  ['POST /batch of 500 creates from 8 connections: plants/s', (name) => name === 'SQLite' ? '≥ 50,000' : '≥ 25,000', (name) => Math.round(med(name, 'plantsPerSecond')).toLocaleString('en')],
  ['… p99 of a batch', () => '≤ 150 ms', (name) => `${med(name, 'p99')} ms`],
  ['a batch of 1,000 failing at its last operation ÷ the same succeeding (time to answer)', () => '≤ 2', (name) => `${med(name, 'failedRatio').toFixed(2)} (${med(name, 'failedMs').toFixed(0)} ÷ ${med(name, 'succeededMs').toFixed(0)} ms)`],
  ['… the failed batches wrote anything (any round)', () => 'no', (name) => runs[name]!.some((figures) => figures.wrote === 1) ? 'yes' : 'no'],
  ['PATCH ÷ PUT on one plant, 10 connections (requests/s)', () => '≥ 0.95', (name) => `${med(name, 'patchRatio').toFixed(2)} (${Math.round(med(name, 'patch'))} ÷ ${Math.round(med(name, 'put'))})`]
]
// A target column per store, as the batch targets differ between them.
const table = `| figure | ${names.map((name) => `${name} target | ${name}`).join(' | ')} |\n|---|${names.map(() => '---|---|').join('')}\n` +
  rows.map(([figure, target, value]) => `| ${figure} | ${names.map((name) => `${target(name)} | ${value(name)}`).join(' | ')} |`).join('\n') + '\n'
const markdown = `Median of ${rounds} rounds, stores interleaved; the batches measured after ${WARMUP_SECONDS} s of warm-up.\n\n${table}`
writeResults('writes', markdown)
console.log(markdown)
