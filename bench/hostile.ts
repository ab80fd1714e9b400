/**
 * npm run bench:hostile [-- --rounds N]: the hostile-user figures, on `plantstore serve` with its
 * default limits (SQLite, and PostgreSQL when PLANTSTORE_TEST_POSTGRES_URL is set), round after round
 * with the stores interleaved. Attackers are 127.0.0.1, in processes of their own; the client whose
 * service is measured is 127.0.0.2. Every load is bounded in count and time, on loopback only.
 * Writes bench/results/hostile.md and the table in bench/README.md; each figure is the median over the rounds.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { freshDatabase } from '../test/databases.js'
import { attackFrom, percentile, probe } from '../test/clients.js'
import { median } from './report.js'
import { cli, generateLoad, NODE_FLAGS, startProcess } from './servers.js'
import { writeResults } from './results.js'

// --tickets-only: the last figure alone (the noisiest), for more rounds in the same time.
const { values: flags } = parseArgs({ options: { rounds: { type: 'string' }, 'tickets-only': { type: 'boolean' } } })
const rounds = Number(flags.rounds ?? 3)
const OTHER = '127.0.0.2'
const REPLAYED = 50_000

interface Served { name: string, url: string, port: number, database: string, admin: string, stop: () => Promise<void> }

const plantstore = (database: string, ...args: string[]) => execFileSync(process.execPath, [cli, ...args, '--database', database], { encoding: 'utf8' }).trim()

async function serve (name: string, database: string): Promise<Served> {
  plantstore(database, 'migrate')
  const admin = plantstore(database, 'tokens', 'create', '--name', 'admin', '--scope', 'plants:read', '--scope', 'plants:write', '--scope', 'tokens:manage')
  // Plants 1..REPLAYED, each with its plant.created event: the log a replay reads.
  const file = join(tmpdir(), `plantstore-hostile-${process.pid}.ndjson`)
  writeFileSync(file, Array.from({ length: REPLAYED }, (_, i) => `{"id":${i + 1},"name":"Fern ${i + 1}"}\n`).join(''))
  plantstore(database, 'import', file, '--notify', '--quiet')
  rmSync(file)
  const started = await startProcess(name, [...NODE_FLAGS, cli, 'serve', '--database', database], '/healthz', '--port')
  return { name, database, admin, ...started, port: Number(new URL(started.url).port) }
}

async function newToken (server: Served, scopes: string[]) {
  const res = await fetch(`${server.url}/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `t-${Math.random().toString(36).slice(2)}`, scopes })
  })
  return ((await res.json()) as { token: string, id: number })
}

const summary = (results: Array<{ status: number, ms: number }>, ok = (status: number) => status === 200) =>
  ({ okPercent: 100 * results.filter((result) => ok(result.status)).length / results.length, p99: percentile(results.map((result) => result.ms), 99) })

/** Seconds from a revocation (over the API) to the end of the token's stream; and from an expiry to it. */
async function revocation (server: Served) {
  const reader = await newToken(server, ['plants:read'])
  const controller = new AbortController()
  const response = await fetch(`${server.url}/events`, { headers: { authorization: `Bearer ${reader.token}` }, signal: controller.signal })
  const ended = (async () => {
    const reader = response.body!.getReader()
    while (!(await reader.read()).done) { /* reading until the server ends it */ }
    return performance.now()
  })()
  await new Promise((resolve) => setTimeout(resolve, 200))
  const revokedAt = performance.now()
  await fetch(`${server.url}/tokens/${reader.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.admin}` } })
  const afterRevoke = (await Promise.race([ended, new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 10_000))])) - revokedAt
  controller.abort()
  return afterRevoke
}

async function idleSockets (server: Served) {
  const attack = await attackFrom(server.port, '127.0.0.1', 1000, [], 60)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const results = await probe([`${server.url}/healthz`, `${server.url}/plants/7`], OTHER, 200, { authorization: `Bearer ${server.admin}` })
  await attack.stop()
  return summary(results)
}

async function streamFlood (server: Served) {
  const tokens = await Promise.all(Array.from({ length: 50 }, () => newToken(server, ['plants:read'])))
  const attack = await attackFrom(server.port, '127.0.0.1', 20, tokens.map(({ token }) =>
    `GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`), 60)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const results = await probe([`${server.url}/healthz`, `${server.url}/plants/7`], OTHER, 200, { authorization: `Bearer ${server.admin}` })
  await attack.stop()
  return summary(results)
}

async function replay (server: Served) {
  const { token } = await newToken(server, ['plants:read'])
  const state = { stopped: false }
  const streams = Array.from({ length: 20 }, async () => {
    while (!state.stopped) {
      const controller = new AbortController()
      const res = await fetch(`${server.url}/events?after=0&types=plant.deleted`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal }).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 1000))
      controller.abort()
      await res?.body?.cancel().catch(() => {})
    }
  })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const results = await probe([`${server.url}/plants/7`], OTHER, 200, { authorization: `Bearer ${server.admin}` })
  state.stopped = true
  await Promise.all(streams)
  return summary(results)
}

let nextId = 1_000_000
/** Creates a second by one client while another floods `flood` with a read token, 25 connections each, 10 s. */
async function createsDuring (server: Served, flood: { method: 'GET' | 'POST', path: string }) {
  const { token } = await newToken(server, ['plants:read'])
  const flooding = generateLoad({ url: server.url, connections: 25, duration: 10, headers: { authorization: `Bearer ${token}` }, requests: [flood] })
  const creating = generateLoad({
    url: server.url,
    connections: 25,
    duration: 10,
    headers: { authorization: `Bearer ${server.admin}`, 'content-type': 'application/json' },
    requests: [{ method: 'POST', path: '/plants', setupRequest: (request) => ({ ...request, body: `{"id":${nextId++},"name":"Ivy"}` }) }]
  })
  const [, created] = await Promise.all([flooding, creating])
  return created.requests.average
}

async function measureOnce (server: Served) {
  const ticketCreates = await createsDuring(server, { method: 'POST', path: '/events/tickets' })
  const getCreates = await createsDuring(server, { method: 'GET', path: '/plants/7' })
  if (flags['tickets-only'] === true) return { ticketOverGet: ticketCreates / getCreates } as Awaited<ReturnType<typeof measureAll>>
  return measureAll(server, ticketCreates / getCreates)
}

async function measureAll (server: Served, ticketOverGet: number) {
  return {
    revokedStreamEndsS: (await revocation(server)) / 1000,
    idle: await idleSockets(server),
    streams: await streamFlood(server),
    replay: await replay(server),
    ticketOverGet
  }
}

const folders: string[] = []
const stores: Array<[string, () => Promise<string>]> = [['SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-hostile-'))
  folders.push(dir)
  return `sqlite:${join(dir, 'plants.db')}`
}]]
if (process.env.PLANTSTORE_TEST_POSTGRES_URL !== undefined) stores.push(['PostgreSQL', () => freshDatabase('postgres:fresh')])

const runs: Record<string, Array<Awaited<ReturnType<typeof measureOnce>>>> = {}
for (let round = 0; round < rounds; round++) {
  for (const [name, database] of round % 2 === 0 ? stores : [...stores].reverse()) {
    const server = await serve(`plantstore, ${name}`, await database())
    try {
      const figures = await measureOnce(server)
      ;(runs[name] ??= []).push(figures)
      console.log(`round ${round + 1} · ${name}: ${JSON.stringify(figures)}`)
    } finally {
      await server.stop()
    }
  }
}

const med = (name: string, pick: (run: Awaited<ReturnType<typeof measureOnce>>) => number) => median(runs[name]!.map(pick))
if (flags['tickets-only'] === true) {
  console.log(`creates during a ticket flood ÷ during a GET flood, median of ${rounds}: ${Object.keys(runs).map((name) => `${name} ${med(name, (r) => r.ticketOverGet).toFixed(2)}`).join(', ')}`)
  process.exit(0)
}
const rows: Array<[string, string, (name: string) => string]> = [
  ['a stream after its token is revoked over the API: closed within', '≤ 1 s', (n) => `${med(n, (r) => r.revokedStreamEndsS).toFixed(2)} s`],
  ['others\' /healthz and GET beside 1,000 reopening idle sockets: succeed', '≥ 99 %', (n) => `${med(n, (r) => r.idle.okPercent).toFixed(1)} %`],
  ['… their p99', '≤ 100 ms', (n) => `${med(n, (r) => r.idle.p99).toFixed(1)} ms`],
  ['others\' /healthz and GET beside 50 tokens × 20 streams: succeed', '≥ 99 %', (n) => `${med(n, (r) => r.streams.okPercent).toFixed(1)} %`],
  ['… their p99', '≤ 100 ms', (n) => `${med(n, (r) => r.streams.p99).toFixed(1)} ms`],
  [`others' GET p99 while one token replays ${REPLAYED.toLocaleString('en')} events through 20 reopening filtered streams`, '≤ 100 ms', (n) => `${med(n, (r) => r.replay.p99).toFixed(1)} ms`],
  ['creates during a ticket flood ÷ during a GET flood of the same size', '≥ 0.8', (n) => med(n, (r) => r.ticketOverGet).toFixed(2)]
]
const names = Object.keys(runs)
const markdown = `Median of ${rounds} rounds, stores interleaved; the attacker 127.0.0.1, the measured client 127.0.0.2.\n\n` +
  `| figure | target | ${names.join(' | ')} |\n|---|---|${names.map(() => '---|').join('')}\n` +
  rows.map(([figure, target, value]) => `| ${figure} | ${target} | ${names.map(value).join(' | ')} |`).join('\n') + '\n'
writeResults('hostile', markdown)
console.log(markdown)
for (const dir of folders) rmSync(dir, { recursive: true, force: true })
