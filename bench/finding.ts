/**
 * npm run bench:finding [-- --rounds N] [--plants N]: finding plants in a store of 1,000,000 (SQLite,
 * and PostgreSQL at PLANTSTORE_TEST_POSTGRES_URL), imported with `plantstore import` and served by
 * `plantstore serve`: for each query shape, the first page and the next page (its Link) of 100, each
 * loaded by 10 connections for 5 s after 3 s of warm-up (p99); `count=exact` of a filter that matches
 * 10 %; and 100 streams, each with a filter of its own, while creates arrive at a fixed 1,000/s for
 * 10 s (after every round of pages, so that each round reads the same store). Stores interleaved in
 * rounds (3 by default); each figure is the median over the rounds. Loopback only.
 * Writes bench/results/finding.md and the table in bench/README.md.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { freshDatabase } from '../test/databases.js'
import { median } from './report.js'
import { plantName, seededNumbers } from './plant-names.js'
import { cli, generateLoad, startPlantstore } from './servers.js'
import type { BenchServer } from './servers.js'
import { measureStreams } from './streams.js'
import { writeResults } from './results.js'

const { values: flags } = parseArgs({ options: { rounds: { type: 'string' }, plants: { type: 'string' } } })
const rounds = Number(flags.rounds ?? 3)
const PLANTS = Number(flags.plants ?? 1_000_000)
const dir = mkdtempSync(join(tmpdir(), 'plantstore-finding-'))

// Ten tags, each a tenth of the tagged plants; a third of the plants have none.
const TAGS = Array.from({ length: 10 }, (_, i) => `tag${i}`)

/** 1,000,000 plants: "Adjective noun N", ids spread over the whole int64 range in random order. */
function plantsFile (): string {
  const path = join(dir, 'plants.ndjson')
  const lines: string[] = []
  const next = seededNumbers(12345)
  const seen = new Set<bigint>()
  for (let i = 0; i < PLANTS; i++) {
    let id: bigint
    do id = BigInt.asIntN(64, BigInt(next()) << 32n | BigInt(next())); while (seen.has(id))
    seen.add(id)
    lines.push(`{"id":${id},"name":"${plantName(next, i)}"${i % 3 === 0 ? '' : `,"tag":"${TAGS[i % 10]}"`}}`)
  }
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

/** The query shapes the targets name, as GET /plants query strings (each page of 100). */
const SHAPES: Array<[name: string, query: string, targetMs: number]> = [
  ['name prefix', 'filter=' + encodeURIComponent('name = "Golden f*"'), 25],
  ['tag =', 'filter=' + encodeURIComponent('tag = "tag3"'), 25],
  ['id range', 'filter=' + encodeURIComponent('id >= -1000000000000000000 AND id < 1000000000000000000'), 25],
  ['name order desc, with a filter', 'order_by=name%20desc&filter=' + encodeURIComponent('tag = "tag7"'), 25],
  ['q, two words', 'q=' + encodeURIComponent('gold fer'), 50],
  ['q, one word with a filter', 'q=orchid&filter=' + encodeURIComponent('tag = "tag2"'), 50]
]

// Each page is loaded for WARMUP_SECONDS before its MEASURED_SECONDS, as every bench warms up: a new
// server's first requests compile.
const WARMUP_SECONDS = 3
const MEASURED_SECONDS = 5

/** A path's p99 at 10 connections, after its warm-up. */
async function p99 (server: BenchServer, path: string): Promise<{ p99: number, errors: number }> {
  const load = { url: `${server.url}${path}`, connections: 10, headers: { authorization: `Bearer ${server.token}` } }
  await generateLoad({ ...load, duration: WARMUP_SECONDS })
  const result = await generateLoad({ ...load, duration: MEASURED_SECONDS })
  return { p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts }
}

/** The next page's path, from the first page's Link. */
async function nextPage (server: BenchServer, path: string): Promise<string> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.token}` } })
  await response.arrayBuffer()
  const link = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1]
  // A store smaller than the default may hold one page only: then the first page is measured again.
  return link ?? path
}

async function countMs (server: BenchServer): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    const response = await fetch(`${server.url}/plants?limit=1&count=exact&filter=${encodeURIComponent('tag = "tag5"')}`, { headers: { authorization: `Bearer ${server.token}` } })
    await response.arrayBuffer()
    if (!response.headers.has('x-total-count')) throw new Error('no X-Total-Count')
    times.push(performance.now() - started)
  }
  return median(times)
}

async function analyze (url: string) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('VACUUM ANALYZE plants')
  } finally {
    await client.end()
  }
}

const file = plantsFile()
const stores: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => `sqlite:${join(dir, 'plants.db')}`],
  ...(process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? [] : [['PostgreSQL', () => freshDatabase('postgres:fresh')] as [string, () => Promise<string>]])
]
const databases = new Map<string, string>()
for (const [name, make] of stores) {
  const url = await make()
  execFileSync(process.execPath, [cli, 'migrate', '--database', url])
  execFileSync(process.execPath, [cli, 'import', file, '--database', url, '--quiet'])
  // As autovacuum does soon after a bulk load: the planner's statistics, and the visibility map that
  // lets a page be read from an index alone.
  if (name === 'PostgreSQL') await analyze(url)
  databases.set(name, url)
  process.stderr.write(`${name}: ${PLANTS} plants imported\n`)
}

const runs: Record<string, Array<Record<string, number>>> = {}
/** Each round's figures for each store, stores interleaved (the first store first in odd rounds). */
async function inRounds (measure: (server: BenchServer, name: string) => Promise<Record<string, number>>) {
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? stores : [...stores].reverse()
    for (const [name] of order) {
      // Without the read cache: each page is read from the store, as a query not asked before is.
      const server = await startPlantstore(`plantstore, ${name}`, databases.get(name)!, undefined, process.env, undefined, ['--read-cache-size', '0'])
      try {
        const figures = await measure(server, name)
        Object.assign((runs[name] ??= [])[round - 1] ??= {}, figures)
        process.stderr.write(`round ${round} · ${name}: ${JSON.stringify(figures)}\n`)
      } finally {
        await server.stop()
      }
    }
  }
}

// Every round's pages first, on the store as imported: the streams' creates (names "t…", no tag) would
// otherwise sit at the top of the name order in later rounds, unvacuumed, and be skipped by each page.
await inRounds(async (server, name) => {
  const figures: Record<string, number> = {}
  for (const [shape, query] of SHAPES) {
    const first = `/plants?limit=100&${query}`
    const next = await nextPage(server, first)
    const [a, b] = [await p99(server, first), await p99(server, next)]
    if (a.errors + b.errors > 0) throw new Error(`${name}, ${shape}: ${a.errors + b.errors} failed requests`)
    figures[`${shape} · first`] = a.p99
    figures[`${shape} · next`] = b.p99
  }
  figures.count = await countMs(server)
  return figures
})
await inRounds(async (server) => {
  const streams = await measureStreams(server, false, true)
  return { lost: streams.lost, duplicated: streams.duplicated, lagP99: streams.lagP99Ms ?? Number.NaN }
})

const names = [...databases.keys()]
const med = (name: string, key: string) => median(runs[name]!.map((figures) => figures[key]!))
const worst = (name: string, key: string) => Math.max(...runs[name]!.map((figures) => figures[key]!))
const rows: Array<[string, string, (name: string) => string]> = [
  ...SHAPES.flatMap(([shape, , target]): Array<[string, string, (name: string) => string]> => [
    [`${shape}: first page of 100, p99 at 10 connections`, `≤ ${target} ms`, (name) => `${med(name, `${shape} · first`)} ms`],
    [`${shape}: next page, p99`, `≤ ${target} ms`, (name) => `${med(name, `${shape} · next`)} ms`]
  ]),
  ['count=exact of a filter that matches 10 %', '≤ 250 ms', (name) => `${med(name, 'count').toFixed(0)} ms`],
  ['100 streams with a filter each, 1,000 creates/s for 10 s: lost (worst round)', '0', (name) => String(worst(name, 'lost'))],
  ['… their lag p99 (sent → received)', '≤ 100 ms', (name) => `${med(name, 'lagP99')} ms`]
]
const markdown = `${PLANTS.toLocaleString('en')} plants, median of ${rounds} rounds, stores interleaved; each page measured for ${MEASURED_SECONDS} s after ${WARMUP_SECONDS} s of warm-up.\n\n` +
  `| figure | target | ${names.join(' | ')} |\n|---|---|${names.map(() => '---|').join('')}\n` +
  rows.map(([figure, target, value]) => `| ${figure} | ${target} | ${names.map(value).join(' | ')} |`).join('\n') + '\n'
writeResults('finding', markdown)
console.log(markdown)
rmSync(dir, { recursive: true, force: true })
