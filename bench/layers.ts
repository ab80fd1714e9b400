/**
 * npm run bench:layers [-- --seconds N] [-- --postgres | --traces | --baseline DIR]: what each layer of
 * `plantstore serve` costs per request, on SQLite next to PostgreSQL (at PLANTSTORE_TEST_POSTGRES_URL;
 * with --postgres), with traces on at 0.1 next to off (--traces), or next to another built checkout (--baseline). Each runs under --cpu-prof with the same load as
 * the bench (50 connections; GET /plants/{id}, then creates);
 * each sample of the main thread taken while the load ran is charged to the layer its function belongs
 * to (layerOf), and the sum is divided by the requests answered meanwhile. Prints microseconds of CPU per
 * request by layer, idle time excluded. A profiler slows what it watches, so the figures are for
 * comparing layers and builds, not for the throughput a server reaches.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scenarios } from './scenarios.js'
import { generateLoad, startPlantstorePostgres, startPlantstoreSqlite, startPlantstoreTraced } from './servers.js'
import type { BenchServer } from './servers.js'
import { layerOf } from './layer-of.js'

interface Profile { nodes: Array<{ id: number, callFrame: { functionName: string, url: string } }>, samples: number[], timeDeltas: number[], startTime: number }
interface Window { fromUs: number, toUs: number, requests: number }

const secondsArg = process.argv.indexOf('--seconds')
const seconds = secondsArg === -1 ? 8 : Number(process.argv[secondsArg + 1])
const postgres = process.argv.includes('--postgres')
const traces = process.argv.includes('--traces')
const baselineArg = process.argv.indexOf('--baseline')
const baseline = baselineArg === -1 ? undefined : process.argv[baselineArg + 1]
const chosen = scenarios.filter((s) => s.name === 'GET /plants/{id}' || s.name === 'create (unique ids)')
const nowUs = () => Number(process.hrtime.bigint() / 1000n)

/** One scenario's load (warm-up, then the measured run, timed on the profiler's clock). */
async function loadOf (server: BenchServer, scenario: typeof chosen[number]): Promise<Window> {
  const run = (duration: number) => generateLoad({
    url: server.url,
    connections: 50,
    duration,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    requests: scenario.requests()
  })
  await scenario.seed?.(server)
  await run(2)
  const fromUs = nowUs()
  const result = await run(seconds)
  return { fromUs, toUs: nowUs(), requests: result.requests.total }
}

/** µs of main-thread CPU per request by layer, over the samples taken inside the window. */
function layersOf (profile: Profile, window: Window): Map<string, number> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const layers = new Map<string, number>()
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]!
    if (at < window.fromUs || at > window.toUs) return
    const frame = frames.get(id)!
    const layer = layerOf(frame.url, frame.functionName)
    if (layer !== undefined) layers.set(layer, (layers.get(layer) ?? 0) + profile.timeDeltas[i]! / window.requests)
  })
  return layers
}

/** Runs each scenario on a server started under the profiler; the main thread's profile is read once it exits. */
async function profiled (start: (env: NodeJS.ProcessEnv) => Promise<BenchServer>) {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-layers-'))
  try {
    const server = await start({ ...process.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` })
    const windows: Window[] = []
    for (const scenario of chosen) windows.push(await loadOf(server, scenario))
    await server.stop()
    // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main one.
    const file = readdirSync(dir).find((name) => name.split('.')[3] === String(server.pid) && name.split('.')[4] === '0')
    if (file === undefined) throw new Error(`${server.name} wrote no profile`)
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile
    return { name: server.name, layers: windows.map((window) => layersOf(profile, window)) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

type Start = (env: NodeJS.ProcessEnv) => Promise<BenchServer>
const serveSqlite: Start = (env) => startPlantstoreSqlite(undefined, env)
// The pair compared: serve without and with traces, or on SQLite and on PostgreSQL; alone, serve on SQLite twice (the noise).
const [below, above]: [Start, Start] = traces
  ? [serveSqlite, startPlantstoreTraced]
  : baseline !== undefined
    ? [(env) => startPlantstoreSqlite('baseline, SQLite', env, baseline), serveSqlite]
    : [serveSqlite, postgres ? startPlantstorePostgres : serveSqlite]
const rung = await profiled(below)
const serve = await profiled(above)

const us = (value: number | undefined) => (value ?? 0).toFixed(1)
chosen.forEach((scenario, i) => {
  const [below, above] = [rung.layers[i]!, serve.layers[i]!]
  const names = [...new Set([...below.keys(), ...above.keys()])].sort((a, b) => (above.get(b) ?? 0) - (above.get(a) ?? 0))
  const sum = (layers: Map<string, number>) => [...layers.values()].reduce((a, b) => a + b, 0)
  console.log(`\n${scenario.name}: µs of CPU per request (main thread, profiled)\n`)
  console.log(`| layer | ${rung.name} | ${serve.name} | added |\n|---|---|---|---|`)
  for (const name of names) console.log(`| ${name} | ${us(below.get(name))} | ${us(above.get(name))} | ${us((above.get(name) ?? 0) - (below.get(name) ?? 0))} |`)
  console.log(`| **all** | ${us(sum(below))} | ${us(sum(above))} | ${us(sum(above) - sum(below))} |`)
})
