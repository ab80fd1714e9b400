/**
 * npm run bench [-- --quick] [--rounds N] [--only SCENARIO] [--servers A,B] [--baseline DIR]: starts each server itself
 * and measures every scenario on every server with autocannon from this process (127.0.0.1 only,
 * bounded durations), in interleaved rounds: each round starts every server on a new store, then runs
 * the ceiling and each server, scenario by scenario, so every server's figure has a ceiling measured
 * moments before it, and no server carries the stores of earlier rounds into its runs. A figure is
 * the median over the rounds. The servers after the ceiling take turns in the opposite order every
 * other round, and with PostgreSQL each run starts after a CHECKPOINT, so that no server always pays
 * for the writes of the ones before it (a checkpoint, or autovacuum, in the middle of its run).
 * With --baseline, the `plantstore serve` of another built checkout (DIR, after `npm run build` there)
 * runs GET and create beside this one, for the ratio of this build to it. Writes bench/results/bench.md
 * and the table in bench/README.md (not with --quick); a run of some scenarios or servers only (--only,
 * --servers) writes bench/results/bench-partial.md instead, so the full table stays; prints the table.
 */
import { parseArgs } from 'node:util'
import pg from 'pg'
import { measure } from './process-stats.js'
import { report } from './report.js'
import type { FeedRun, Row } from './report.js'
import { scenarios } from './scenarios.js'
import type { Scenario } from './scenarios.js'
import { measureStreams } from './streams.js'
import { baselineLabel, baselineName, CEILING, generateLoad, POSTGRES, PRISM, SQLITE, startBaseline, startCeiling, startPlantstorePostgres, startPlantstoreSqlite, startPlantstoreTraced, startPrism, TRACED } from './servers.js'
import type { BenchServer } from './servers.js'

type Starter = [name: string, start: () => Promise<BenchServer>]

// --only <text>: just the scenarios whose name contains it (repeatable; for investigating one figure).
// --servers <a,b>: just the servers whose name contains one of these (the ceiling always runs); the flag
// may be repeated, and a comma followed by a space is part of a name ("plantstore, SQLite").
// An unknown flag stops the run before any server starts (parseArgs is strict).
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, rounds: { type: 'string' }, only: { type: 'string', multiple: true }, servers: { type: 'string', multiple: true }, baseline: { type: 'string' } } })
const quick = flags.quick === true
const rounds = flags.rounds === undefined ? (quick ? 1 : 3) : Number(flags.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number of rounds, at least 1: not ${flags.rounds}`)
const chosen = flags.only === undefined ? scenarios : scenarios.filter((s) => flags.only!.some((part) => s.name.includes(part)))
const serverFilter = flags.servers?.flatMap((list) => list.split(/,(?! )/))
const connections = 50
const warmupSeconds = quick ? 1 : 3
const durationSeconds = quick ? 1 : 10

async function load (server: BenchServer, scenario: Scenario, duration: number) {
  return generateLoad({
    url: server.url,
    connections,
    duration,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    requests: scenario.requests()
  })
}

/** Writes out what earlier runs left dirty in PostgreSQL's buffers, before a run; nothing without PostgreSQL. */
async function checkpoint () {
  const url = process.env.PLANTSTORE_TEST_POSTGRES_URL
  if (url === undefined) return
  const client = new pg.Client(url)
  await client.connect()
  try {
    await client.query('CHECKPOINT')
  } finally {
    await client.end()
  }
}

async function runOne (server: BenchServer, scenario: Scenario, round: number): Promise<Row> {
  await scenario.seed?.(server)
  await checkpoint()
  await load(server, scenario, warmupSeconds)
  const around = scenario.around === undefined ? undefined : await scenario.around.before(server)
  if (around !== undefined) scenario.around!.measuring(around)
  const { result, cpuSeconds, peakRssMiB } = await measure(server.pid, () => load(server, scenario, durationSeconds))
  const extra = around === undefined ? {} : await scenario.around!.after(around, result['2xx'])
  return {
    round,
    scenario: scenario.name,
    server: server.name,
    requestsPerSecond: Math.round(result.requests.total / durationSeconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    peakRssMiB: Math.round(peakRssMiB),
    extra
  }
}

async function main () {
  const postgres = process.env.PLANTSTORE_TEST_POSTGRES_URL !== undefined
  // A baseline runs just before the server it is compared with, so that the two sides of a ratio are
  // measured as close together as the order allows (this machine drifts by tens of percent within minutes).
  const baseline = (store: 'SQLite' | 'PostgreSQL'): Starter[] => flags.baseline === undefined ? [] : [[baselineName(store), () => startBaseline(flags.baseline!, store)]]
  const postgresStarters: Starter[] = postgres ? [...baseline('PostgreSQL'), [POSTGRES, () => startPlantstorePostgres()]] : []
  const starters: Starter[] = [[CEILING, startCeiling], ...baseline('SQLite'),
    [SQLITE, () => startPlantstoreSqlite()], [TRACED, () => startPlantstoreTraced()], ...postgresStarters, [PRISM, startPrism]]
  // What --servers leaves out is never started; the ceiling always runs.
  const wanted = starters.filter(([name], i) => i === 0 || serverFilter === undefined || serverFilter.some((part) => name.includes(part)))
  const rows: Row[] = []
  const feedRuns: FeedRun[] = []
  const withFeed = flags.only === undefined || flags.only.some((part) => 'live feed'.includes(part))
  for (let round = 1; round <= rounds; round++) {
    // Every server starts each round anew, on a new store: otherwise a server that runs every scenario
    // wrote its round's creates into a store several rounds larger than a baseline's, which runs two.
    const servers: BenchServer[] = []
    // A run that failed reports its own error: a server that then fails to stop (the traced one, with no
    // span received) is only printed, so it cannot hide the cause.
    let failure: { error: unknown } | undefined
    try {
      for (const [, start] of wanted) servers.push(await start())
      const [ceiling, ...rest] = servers
      const inTurn = round % 2 === 1 ? servers : [ceiling!, ...rest.reverse()]
      for (const scenario of chosen) {
        for (const server of inTurn.filter((s) => scenario.runsOn?.(s) ?? s.coreOnly !== true)) {
          rows.push(await runOne(server, scenario, round))
          process.stderr.write(`round ${round} · ${scenario.name} · ${server.name}: ${rows.at(-1)!.requestsPerSecond} req/s\n`)
        }
      }
      for (const server of withFeed ? servers.filter((s) => s.database !== undefined) : []) {
        feedRuns.push({ round, server: server.name, ...await measureStreams(server, quick) })
        process.stderr.write(`round ${round} · live feed · ${server.name}: ${JSON.stringify(feedRuns.at(-1))}\n`)
      }
    } catch (error) {
      failure = { error }
    }
    const stopFailures: unknown[] = []
    for (const server of servers) {
      await server.stop({ measured: rows.some((row) => row.round === round && row.server === server.name) }).catch((error: unknown) => stopFailures.push(error))
    }
    if (failure !== undefined) {
      for (const error of stopFailures) process.stderr.write(`also, as the servers stopped: ${String(error)}\n`)
      throw failure.error
    }
    if (stopFailures.length > 0) throw stopFailures[0]
  }
  report(rows, feedRuns, { quick, partial: flags.only !== undefined || flags.servers !== undefined, rounds, connections, warmupSeconds, durationSeconds, ceiling: CEILING, scenarios: chosen, baseline: baselineLabel(flags.baseline) })
}

await main()
