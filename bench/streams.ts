import { setTimeout as sleep } from 'node:timers/promises'
import { rssMiB } from './process-stats.js'
import { ids } from './ids.js'
import { startProcess } from './servers.js'
import type { BenchServer } from './servers.js'

/** The stream readers' process (stream-readers.mjs) and what it reports. */
export interface Readers { url: string, stop: () => Promise<void> }
export interface ReaderStats { streams: number, atEnd: number, minEvents: number, maxEvents: number, totalEvents: number, outOfOrder: number, lagP50Ms: number | null, lagP99Ms: number | null }

export async function startReaders (): Promise<Readers> {
  return startProcess('stream readers', ['bench/stream-readers.mjs'], '/stats')
}

export async function call (readers: Readers, path: string): Promise<ReaderStats> {
  return await (await fetch(readers.url + path, { method: path.startsWith('/stats') ? 'GET' : 'POST' })).json() as ReaderStats
}

export const openStreams = (readers: Readers, server: BenchServer, count: number, filtered = false) =>
  call(readers, `/open?url=${encodeURIComponent(server.url)}&token=${server.token}&count=${count}${filtered ? '&filtered=1' : ''}`)

/** The log position a read reflects now. */
export async function position (server: BenchServer): Promise<number> {
  const response = await fetch(`${server.url}/plants?limit=1`, { headers: { authorization: `Bearer ${server.token}` } })
  await response.arrayBuffer()
  return Number(response.headers.get('plantstore-event-position'))
}

const create = (server: BenchServer) => fetch(`${server.url}/plants`, {
  method: 'POST',
  headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
  body: `{"id":${ids.next++},"name":"t${Date.now()}"}`
}).then(async (response) => { await response.arrayBuffer(); return response.status === 200 }, () => false)

/** 10 creates every 10 ms for `seconds`, on time whatever the answers do: whether each was acknowledged. */
async function atFixedRate (server: BenchServer, seconds: number): Promise<boolean[]> {
  const sends: Array<Promise<boolean>> = []
  const started = Date.now()
  for (let tick = 0; tick < seconds * 100; tick++) {
    for (let i = 0; i < 10; i++) sends.push(create(server))
    await sleep(Math.max(0, started + (tick + 1) * 10 - Date.now()))
  }
  return await Promise.all(sends)
}

/** The server's own stream-lag histogram (commit → written to a stream's socket): cumulative bucket counts. */
async function lagBuckets (server: BenchServer): Promise<Map<number, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const buckets = new Map<number, number>()
  for (const match of text.matchAll(/^plantstore_stream_lag_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)) {
    buckets.set(match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2]))
  }
  return buckets
}

/** The p99 of what the histogram counted between two scrapes, as the upper bound of its bucket, in ms. */
function p99Between (before: Map<number, number>, after: Map<number, number>): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b)
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0)
  if (total === 0) return null
  const bound = bounds.find((le) => (after.get(le)! - (before.get(le) ?? 0)) >= 0.99 * total)!
  return bound * 1000
}

/** Waits until every stream has reached `end` (or `ms` pass); answers the stats and how long it took. */
export async function untilAtEnd (readers: Readers, end: number, ms: number) {
  const started = Date.now()
  let stats = await call(readers, `/stats?until=${end}`)
  while (stats.atEnd < stats.streams && Date.now() - started < ms) {
    await sleep(20)
    stats = await call(readers, `/stats?until=${end}`)
  }
  return { stats, ms: Date.now() - started }
}

/** Seconds of creates at the fixed rate, and creates while the streams are dropped: fewer with --quick, a smoke test. */
export const feedSizes = (quick: boolean) => quick ? { seconds: 1, missed: 1_000 } : { seconds: 10, missed: 10_000 }

/**
 * The live-feed figures of one server (one round): 100 streams while creates arrive at a fixed
 * 1,000/s (events lost or duplicated on any stream, lag from a create's sending to its arrival);
 * the same streams dropped while plants are created (feedSizes), then all resuming with Last-Event-ID
 * (complete, in order, and how soon); and 1,000 idle streams' resident memory.
 */
export async function measureStreams (server: BenchServer, quick: boolean, filtered = false) {
  const readers = await startReaders()
  try {
    const streams = 100
    await openStreams(readers, server, streams, filtered)
    await sleep(1000)
    // Unmeasured, the same load for 2 s first: a server just started (JIT, connections) is not steady.
    await atFixedRate(server, 2)
    await untilAtEnd(readers, await position(server), 5000)
    await call(readers, '/reset')
    const before = await position(server)
    const lagBefore = await lagBuckets(server)
    const { seconds, missed } = feedSizes(quick)
    const started = Date.now()
    const answers = await atFixedRate(server, seconds)
    const acknowledged = answers.filter(Boolean).length
    const end = await position(server)
    const live = await untilAtEnd(readers, end, 5000)
    const commitToWrittenP99Ms = p99Between(lagBefore, await lagBuckets(server))
    const expected = end - before
    const lost = streams * expected - (live.stats.totalEvents - live.stats.outOfOrder)
    const steady = { acknowledged, sentPerSecond: Math.round(answers.length / ((Date.now() - started) / 1000)), lost: Math.max(0, lost), duplicated: live.stats.outOfOrder, lagP99Ms: live.stats.lagP99Ms, lagP50Ms: live.stats.lagP50Ms, commitToWrittenP99Ms }
    if (filtered) return steady

    await call(readers, '/drop')
    for (let i = 0; i < missed; i += 50) await Promise.all(Array.from({ length: 50 }, () => create(server)))
    const after = await position(server)
    await call(readers, '/resume')
    const resumed = await untilAtEnd(readers, after, 30_000)
    const reconnect = {
      complete: resumed.stats.atEnd === streams && resumed.stats.minEvents === resumed.stats.maxEvents && resumed.stats.minEvents === after - before ? 1 : 0,
      outOfOrder: resumed.stats.outOfOrder,
      caughtUpMs: resumed.ms
    }
    await call(readers, '/close')

    await sleep(2000)
    const baseline = rssMiB(server.pid!)
    await openStreams(readers, server, 1000)
    await sleep(3000)
    const idle = await call(readers, '/stats')
    const withIdle = rssMiB(server.pid!)
    await call(readers, '/close')
    return { ...steady, ...reconnect, idleStreams: idle.streams, idleRssAboveMiB: Math.round((withIdle - baseline) * 10) / 10 }
  } finally {
    await readers.stop()
  }
}
