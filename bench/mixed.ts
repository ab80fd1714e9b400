/**
 * npm run bench:mixed [-- --rounds N]: on `plantstore serve` with SQLite, GETs of one plant by 4
 * clients while 16 others replace plants, and while 16 others create them, in alternating runs of
 * 10 s. A replace must not stall the event loop any more than a create: the figure is the GETs' rate
 * beside replaces ÷ beside creates (the median over the rounds). Loopback only, bounded in time.
 * Writes bench/results/mixed.md and the table in bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Request } from 'autocannon'
import { median } from './report.js'
import { generateLoad, startPlantstore } from './servers.js'
import { writeResults } from './results.js'

const { values: flags } = parseArgs({ options: { rounds: { type: 'string' } } })
const rounds = Number(flags.rounds ?? 5)
const SECONDS = 10
const PLANTS = 1000

const dir = mkdtempSync(join(tmpdir(), 'plantstore-mixed-'))
const server = await startPlantstore('plantstore, SQLite', `sqlite:${join(dir, 'plants.db')}`)
const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }
for (let id = 1; id <= PLANTS; id++) {
  await fetch(`${server.url}/plants`, { method: 'POST', headers, body: JSON.stringify({ id, name: `Fern ${id}` }) })
}

let nextId = 10_000_000
let round = 0
const writes = {
  replace: { method: 'PUT', setupRequest: (request: Request) => ({ ...request, path: `/plants/${1 + (nextId++ % PLANTS)}`, body: `{"name":"Fern ${round}-${nextId}"}` }) },
  create: { method: 'POST', path: '/plants', setupRequest: (request: Request) => ({ ...request, body: `{"id":${nextId++},"name":"Ivy"}` }) }
}

/** GETs a second by 4 clients beside 16 clients doing `write`. */
async function readsBeside (write: keyof typeof writes) {
  const [reads, written] = await Promise.all([
    generateLoad({ url: server.url, connections: 4, duration: SECONDS, headers, requests: [{ method: 'GET', path: '/plants/7' }] }),
    generateLoad({ url: server.url, connections: 16, duration: SECONDS, headers, requests: [{ path: '/plants', ...writes[write] }] })
  ])
  // Only answered requests count: a 503 is quick, and would pass for service.
  return { reads: reads['2xx'] / SECONDS, readP99: reads.latency.p99, writes: written.requests.average, errors: written.non2xx + reads.non2xx, readStatuses: reads.statusCodeStats, writeStatuses: written.statusCodeStats }
}

const runs: Array<{ replace: Awaited<ReturnType<typeof readsBeside>>, create: Awaited<ReturnType<typeof readsBeside>> }> = []
try {
  for (; round < rounds; round++) {
    // Interleaved, in turn first: neither always runs on the warmer server.
    const order = round % 2 === 0 ? ['replace', 'create'] as const : ['create', 'replace'] as const
    const run: Partial<typeof runs[number]> = {}
    for (const write of order) run[write] = await readsBeside(write)
    runs.push(run as typeof runs[number])
    console.log(`round ${round + 1}: ${JSON.stringify(run)}`)
  }
} finally {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}

const m = (pick: (run: typeof runs[number]) => number) => median(runs.map(pick))
const markdown = `Median of ${rounds} rounds; 4 clients GET one plant while 16 others write, ${SECONDS} s a run.\n\n` +
  '| while 16 others | GETs/s | GET p99 | writes/s |\n|---|---|---|---|\n' +
  (['replace', 'create'] as const).map((write) => `| ${write} | ${m((r) => r[write].reads).toFixed(0)} | ${m((r) => r[write].readP99).toFixed(1)} ms | ${m((r) => r[write].writes).toFixed(0)} |`).join('\n') +
  `\n\nGETs beside replaces ÷ beside creates (target ≥ 0.80): ${m((r) => r.replace.reads / r.create.reads).toFixed(2)}\n`
writeResults('mixed', markdown)
console.log(markdown)
