import { cpus, totalmem } from 'node:os'
import { CREATE } from './scenarios.js'
import { writeResults } from './results.js'
import { feedSizes } from './streams.js'
import { baselineName, POSTGRES, PRISM, SQLITE, TRACED } from './servers.js'
import type { Scenario } from './scenarios.js'

/** One measured run: one scenario on one server in one round. */
export interface Row {
  round: number
  scenario: string
  server: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
  cpuSeconds: number
  peakRssMiB: number
  extra: Record<string, number | null>
}

/** The live-feed figures of one server in one round (streams.ts). */
export type FeedRun = { round: number, server: string } & Record<string, number | string | null>

interface Settings {
  quick: boolean
  /** Some scenarios or servers only: its table must not replace the full one. */
  partial: boolean
  rounds: number
  connections: number
  warmupSeconds: number
  durationSeconds: number
  ceiling: string
  scenarios: Scenario[]
  /** What --baseline named (its commit, when it is a git checkout), for the table's header. */
  baseline: string | undefined
}

export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const round2 = (n: number) => Math.round(n * 100) / 100

/** Round-by-round ratios of one server's runs to another's. */
const perRound = (runs: Row[], base: Row[]) => runs.flatMap((run) => {
  const against = base.find((r) => r.round === run.round)
  return against === undefined ? [] : [run.requestsPerSecond / against.requestsPerSecond]
})

/** Medians over the rounds of each scenario × server; ratios are taken round by round, then their median. */
export function summarise (rows: Row[], settings: Settings) {
  const summary = []
  for (const scenario of settings.scenarios) {
    const servers = [...new Set(rows.filter((r) => r.scenario === scenario.name).map((r) => r.server))]
    for (const server of servers) {
      const runs = rows.filter((r) => r.scenario === scenario.name && r.server === server)
      const ratioOf = (againstScenario: string, againstServer: string) => runs.map((run) => {
        const base = rows.find((r) => r.round === run.round && r.scenario === againstScenario && r.server === againstServer)
        return base === undefined ? Number.NaN : run.requestsPerSecond / base.requestsPerSecond
      })
      const extras = Object.fromEntries(Object.keys(runs[0]!.extra).map((key) => {
        const values = runs.map((run) => run.extra[key]).filter((v): v is number => typeof v === 'number')
        return [key, values.length === 0 ? null : key === 'duplicates' ? Math.max(...values) : round2(median(values))]
      }))
      summary.push({
        scenario: scenario.name,
        server,
        rounds: runs.length,
        requestsPerSecond: Math.round(median(runs.map((r) => r.requestsPerSecond))),
        ratioToCeiling: round2(median(ratioOf(scenario.ceilingOf ?? scenario.name, settings.ceiling))),
        ...(scenario.ceilingOf !== undefined && { ratioToOwnCreate: round2(median(ratioOf(CREATE, server))) }),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
        errors: runs.reduce((n, r) => n + r.errors, 0),
        cpuSeconds: round2(median(runs.map((r) => r.cpuSeconds))),
        // Server CPU per answered request: what a layer costs, whatever the load generator could send.
        cpuMicrosPerRequest: Math.round(median(runs.map((r) => (r.cpuSeconds * 1e6) / Math.max(1, r.requestsPerSecond * settings.durationSeconds)))),
        peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
        ...extras
      })
    }
  }
  return summary
}

export function report (rows: Row[], feedRuns: FeedRun[], settings: Settings) {
  const summary = summarise(rows, settings)
  const rows0 = (scenario: string, server: string) => rows.filter((r) => r.scenario === scenario && r.server === server)
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  // Each row's own reference: the same server with traces off, or the --baseline build on the same store.
  const references: Record<string, string> = { [TRACED]: SQLITE, [SQLITE]: baselineName('SQLite'), [POSTGRES]: baselineName('PostgreSQL') }
  const toReference = (scenario: string, server: string) => {
    const reference = references[server]
    const base = reference === undefined ? [] : rows0(scenario, reference)
    return base.length === 0 ? '–' : `**${round2(median(perRound(rows0(scenario, server), base)))}**`
  }
  const header = '| scenario | server | req/s | ÷ ceiling | ÷ reference | p50 ms | p99 ms | non-2xx | errors | server CPU s | peak RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|---|\n'
  // A run of some scenarios only may have no ceiling row for one: its ratio to the ceiling is left out.
  const line = (r: typeof summary[number]) => `| ${r.scenario} | ${r.server} | ${r.requestsPerSecond} | ${Number.isNaN(r.ratioToCeiling) ? '–' : r.ratioToCeiling} | ${toReference(r.scenario, r.server)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} | ${r.cpuSeconds} | ${r.peakRssMiB} |`
  const table = header + summary.map(line).join('\n')
  // bench/README.md shows the summarised scenarios, without Prism; the rest is in results/bench.md.
  const summarised = new Set(settings.scenarios.filter((s) => s.summarised === true).map((s) => s.name))
  const shortTable = header + summary.filter((r) => summarised.has(r.scenario) && r.server !== PRISM).map(line).join('\n')
  const withSubscriber = summary.filter((r) => 'deliveredWithin5s' in r) as Array<Record<string, unknown>>
  const webhooks = withSubscriber.length === 0
    ? ''
    : '\n\nCreates with one webhook subscriber (a receiver in its own process answering 200 at once), against the same server\'s creates without one in the same round:\n\n' +
      '| server | creates/s | ÷ creates without | p99 ms | delivered within 5 s after the load | lag p50 ms | lag p99 ms | duplicates |\n|---|---|---|---|---|---|---|---|\n' +
      withSubscriber.map((r) => `| ${r.server} | ${r.requestsPerSecond} | ${r.ratioToOwnCreate} | ${r.p99Ms} | ${r.deliveredWithin5s} | ${r.lagP50Ms} | ${r.lagP99Ms} | ${r.duplicates} |`).join('\n')
  const withStreams = summary.filter((r) => 'streamsComplete' in r) as Array<Record<string, unknown>>
  const streams = withStreams.length === 0
    ? ''
    : '\n\nCreates with 20 open GET /events streams (readers in a process of their own), against the same server\'s creates without any in the same round:\n\n' +
      '| server | creates/s | ÷ creates without | p99 ms | every stream complete | out of order | stream lag p99 ms |\n|---|---|---|---|---|---|---|\n' +
      withStreams.map((r) => `| ${r.server} | ${r.requestsPerSecond} | ${r.ratioToOwnCreate} | ${r.p99Ms} | ${r.streamsComplete} | ${r.streamOutOfOrder} | ${r.streamLagP99Ms} |`).join('\n')
  const feed = feedTable(feedRuns, settings.quick)
  const intro = `${settings.connections} connections, ${settings.durationSeconds} s per run after ${settings.warmupSeconds} s warm-up, ` +
    `median of ${settings.rounds} interleaved round${settings.rounds === 1 ? '' : 's'}${settings.quick ? ' (--quick)' : ''}; ` +
    `${new Date().toISOString().slice(0, 10)} on ${machine}. Ratios are the medians of the rounds' ratios; a row's reference is ` +
    'the same server with traces off (traced, sent over OTLP/HTTP to a process that drops them), or the --baseline build' +
    `${settings.baseline === undefined ? '' : ` (${settings.baseline})`} on its store.\n\n`
  const markdown = `${intro}${table}${webhooks}${streams}${feed}\n`
  const readme = `${intro}${shortTable}\n\nEvery scenario, and creates beside a webhook subscriber, beside 20 streams and the live feed: [results/bench.md](results/bench.md).\n`
  if (!settings.quick) writeResults(settings.partial ? 'bench-partial' : 'bench', markdown, readme)
  process.stdout.write(markdown)
}

/** The live feed's figures, the median (worst for losses) over the rounds per server. */
function feedTable (runs: FeedRun[], quick: boolean): string {
  if (runs.length === 0) return ''
  const { seconds, missed } = feedSizes(quick)
  const servers = [...new Set(runs.map((run) => run.server))]
  const of = (server: string, key: string) => runs.filter((run) => run.server === server).map((run) => Number(run[key]))
  return `\n\nThe live feed (GET /events), per round: 100 streams while creates are sent at a fixed 1,000/s for ${seconds} s (events lost or duplicated ` +
    'over all streams; lag from a create\'s sending to its arrival on a stream, which includes the create\'s own latency, and the server\'s ' +
    `own commit → written-to-the-stream p99, from its plantstore_stream_lag_seconds histogram, as the bound of its bucket); those streams dropped while ${missed.toLocaleString('en-US')} plants are created, then all ` +
    'resuming with Last-Event-ID; and the server\'s resident memory with 1,000 idle streams open, above the same server with none:\n\n' +
    '| server | creates/s sent | lost | duplicated | sent → received p50 ms | sent → received p99 ms | commit → written p99 ms | resumed complete and in order | caught up in ms | RSS above, 1,000 idle streams (MiB) |\n|---|---|---|---|---|---|---|---|---|---|\n' +
    servers.map((server) => `| ${server} | ${median(of(server, 'sentPerSecond'))} | ${Math.max(...of(server, 'lost'))} | ${Math.max(...of(server, 'duplicated'))} | ` +
      `${median(of(server, 'lagP50Ms'))} | ${median(of(server, 'lagP99Ms'))} | ${median(of(server, 'commitToWrittenP99Ms'))} | ${Math.min(...of(server, 'complete'))} | ${median(of(server, 'caughtUpMs'))} | ` +
      `${median(of(server, 'idleRssAboveMiB'))} |`).join('\n')
}
