/**
 * npm run bench [-- --quick]: starts each server itself, warms it up, and measures every scenario on
 * every server, interleaved, with autocannon from this process (127.0.0.1 only, bounded durations).
 * Writes bench/results/latest.{json,md}; prints the markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import autocannon from 'autocannon'
import { measure } from './process-stats.js'
import { scenarios } from './scenarios.js'
import type { Scenario } from './scenarios.js'
import { startCeiling, startPlantstorePostgres, startPlantstoreSqlite, startPrism } from './servers.js'
import type { BenchServer } from './servers.js'

const quick = process.argv.includes('--quick')
const connections = 50
const warmupSeconds = quick ? 1 : 3
const durationSeconds = quick ? 3 : 10

interface Row {
  scenario: string
  server: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
  cpuSeconds: number
  peakRssMiB: number
  ratioToCeiling?: number
}

async function load (server: BenchServer, scenario: Scenario, duration: number) {
  return autocannon({
    url: server.url,
    connections,
    duration,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    requests: scenario.requests()
  })
}

async function main () {
  const starters = [startCeiling, startPlantstoreSqlite,
    ...(process.env.PLANTSTORE_TEST_POSTGRES_URL !== undefined ? [startPlantstorePostgres] : []), startPrism]
  const servers: BenchServer[] = []
  for (const startServer of starters) servers.push(await startServer())
  const rows: Row[] = []
  try {
    for (const scenario of scenarios) {
      for (const server of servers) {
        await scenario.seed?.(server)
        await load(server, scenario, warmupSeconds)
        const { result, cpuSeconds, peakRssMiB } = await measure(server.pid, () => load(server, scenario, durationSeconds))
        rows.push({
          scenario: scenario.name,
          server: server.name,
          requestsPerSecond: Math.round(result.requests.total / durationSeconds),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          cpuSeconds: Math.round(cpuSeconds * 100) / 100,
          peakRssMiB: Math.round(peakRssMiB)
        })
        process.stderr.write(`${scenario.name} · ${server.name}: ${rows.at(-1)!.requestsPerSecond} req/s\n`)
      }
      const ceiling = rows.find((row) => row.scenario === scenario.name && row.server === servers[0]!.name)!
      for (const row of rows.filter((r) => r.scenario === scenario.name)) {
        row.ratioToCeiling = Math.round((row.requestsPerSecond / ceiling.requestsPerSecond) * 100) / 100
      }
    }
  } finally {
    for (const server of servers) await server.stop()
  }
  report(rows)
}

function report (rows: Row[]) {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  const header = '| scenario | server | req/s | ratio to ceiling | p50 ms | p99 ms | non-2xx | errors | server CPU s | peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|\n'
  const table = header + rows.map((r) => `| ${r.scenario} | ${r.server} | ${r.requestsPerSecond} | ${r.ratioToCeiling} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} | ${r.cpuSeconds} | ${r.peakRssMiB} |`).join('\n')
  const markdown = `${connections} connections, ${durationSeconds} s per run after ${warmupSeconds} s warm-up${quick ? ' (--quick)' : ''}; ` +
    `${new Date().toISOString().slice(0, 10)} on ${machine}.\n\n${table}\n`
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  const name = quick ? 'quick' : 'latest'
  writeFileSync(new URL(`results/${name}.json`, import.meta.url), JSON.stringify({ machine, connections, durationSeconds, quick, rows }, null, 2) + '\n')
  writeFileSync(new URL(`results/${name}.md`, import.meta.url), markdown)
  process.stdout.write(markdown)
}

await main()
