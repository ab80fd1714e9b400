import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import type { Options } from 'autocannon'
import { freshDatabase } from '../test/databases.js'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const cli = join(root, 'dist/cli/main.js')

export interface BenchServer {
  name: string
  url: string
  pid: number
  /** The bearer token requests carry (any value for servers that do not check). */
  token: string
  /** The store's URL, for plantstore servers (the CLI reaches the same store with it). */
  database?: string
  /** A server compared on GET and create only (traces on, a baseline build): it runs only those scenarios. */
  coreOnly?: boolean
  /** `measured`: whether any scenario ran on it (a server that served nothing has nothing to check). */
  stop: (run?: { measured: boolean }) => Promise<void>
}

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Starts `node <args> <port>` (the port appended last unless `portFlag` names its flag) with its output
 * discarded, and waits until `readyPath` answers.
 */
export async function startProcess (name: string, args: string[], readyPath = '/healthz', portFlag?: string, env: NodeJS.ProcessEnv = process.env) {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [...args, ...(portFlag === undefined ? [] : [portFlag]), String(port)],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    const ready = await fetch(url + readyPath).then((res) => res.status < 500, () => false)
    if (ready) break
    if (Date.now() > deadline) throw new Error(`${name} did not start`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const stop = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  return { url, pid: child.pid!, stop }
}

/**
 * autocannon against a server. The server answers 10,000 requests on one connection
 * (`maxRequestsPerSocket`), and 503 to every request after that on it: a client that ignores
 * `Connection: close`, as autocannon does, would be counted for those cheap 503s. So every load opens
 * a new connection each 5,000 requests.
 */
export const generateLoad = (options: Options) => autocannon({ reconnectRate: 5000, ...options })

export const CEILING = 'node:http ceiling'
export const SQLITE = 'plantstore, SQLite'
export const POSTGRES = 'plantstore, PostgreSQL'
export const PRISM = 'Prism mock'

export async function startCeiling (): Promise<BenchServer> {
  const started = await startProcess('ceiling', ['bench/ceiling-server.mjs'], '/')
  return { name: CEILING, token: 'none', ...started }
}

/**
 * The Node flags on the first line of this build's `plantstore` executable (bin/plantstore.js), so
 * that every server, a baseline's too, runs as the executable runs it: builds differ by their code.
 */
export const NODE_FLAGS = readFileSync(join(root, 'bin/plantstore.js'), 'utf8').split('\n', 1)[0]!.split(/\s+/).filter((word) => word.startsWith('--'))

let tokens = 0

/** `plantstore serve` with default settings (durable: WAL, synchronous=FULL) on a new database. */
export async function startPlantstore (name: string, database: string, cleanup = () => {}, env: NodeJS.ProcessEnv = process.env, build = root, flags: string[] = []): Promise<BenchServer> {
  const cli = join(build, 'dist/cli/main.js')
  execFileSync(process.execPath, [cli, 'migrate', '--database', database])
  const token = execFileSync(process.execPath, [cli, 'tokens', 'create', '--name', `bench-${process.pid}-${++tokens}`, '--database', database], { encoding: 'utf8' }).trim()
  // The live-feed scenarios open up to 1,000 streams with the one bench token, from this one address.
  // An older build (a baseline) may not have every limit: it is given those it has.
  const help = execFileSync(process.execPath, [cli, 'serve', '--help'], { encoding: 'utf8' })
  const limits = [['--max-streams-per-token', '2000'], ['--max-connections', '4000'], ['--max-connections-per-address', '4000']]
    .filter(([flag]) => new RegExp(`${flag}\\b`).test(help)).flat()
  const started = await startProcess(name, [...NODE_FLAGS, cli, 'serve', '--database', database, ...limits, ...flags], '/healthz', '--port', env)
  return {
    name,
    token,
    database,
    ...started,
    stop: async () => {
      await started.stop()
      cleanup()
    }
  }
}

/** `plantstore serve` on a new SQLite file, removed when it stops. */
export async function startPlantstoreSqlite (name = SQLITE, env: NodeJS.ProcessEnv = process.env, build = root) {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-bench-'))
  return startPlantstore(name, `sqlite:${join(dir, 'plants.db')}`, () => rmSync(dir, { recursive: true, force: true }), env, build)
}

export const TRACED = 'plantstore, SQLite, traces at 0.1'

/**
 * `plantstore serve` on SQLite with traces on, sampled at 0.1, exported over OTLP/HTTP (protobuf, the
 * default) to a collector in a process of its own (span-sink.mjs). Its stop fails if it was measured and
 * no span arrived.
 */
export async function startPlantstoreTraced (env: NodeJS.ProcessEnv = process.env): Promise<BenchServer> {
  const sink = await startProcess('span sink', ['bench/span-sink.mjs'], '/stats')
  const server = await startPlantstoreSqlite(TRACED, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER_ARG: '0.1' })
  return {
    ...server,
    database: undefined,
    coreOnly: true,
    stop: async (run) => {
      // The server sends the spans it holds as it stops.
      await server.stop()
      const { exports } = await (await fetch(`${sink.url}/stats`)).json() as { exports: number }
      await sink.stop()
      if (exports === 0 && run?.measured !== false) throw new Error(`${TRACED}: no spans reached the collector`)
    }
  }
}

export async function startPlantstorePostgres (env: NodeJS.ProcessEnv = process.env, name = POSTGRES, build = root) {
  return startPlantstore(name, await freshDatabase('postgres:fresh'), undefined, env, build)
}

/** The names of a baseline build's servers (--baseline): what this build is measured against. */
export const baselineName = (store: 'SQLite' | 'PostgreSQL') => `baseline, ${store}`

/** How the table names a baseline build: its commit when the folder is a git checkout, else the folder. */
export function baselineLabel (build: string | undefined): string | undefined {
  if (build === undefined) return undefined
  // A build made outside git (bench/without-tracing.ts) names itself in BASELINE.
  if (existsSync(join(build, 'BASELINE'))) return readFileSync(join(build, 'BASELINE'), 'utf8').trim()
  try {
    return execFileSync('git', ['-C', build, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return build
  }
}

/** `plantstore serve` of another built checkout (its dist/), on GET and create only. */
export async function startBaseline (build: string, store: 'SQLite' | 'PostgreSQL'): Promise<BenchServer> {
  const server = store === 'SQLite'
    ? await startPlantstoreSqlite(baselineName(store), process.env, build)
    : await startPlantstorePostgres(process.env, baselineName(store), build)
  return { ...server, database: undefined, coreOnly: true }
}

/** The Stoplight Prism mock serving our document: what a user might run instead. */
export async function startPrism (): Promise<BenchServer> {
  const prism = join(root, 'node_modules/@stoplight/prism-cli/dist/index.js')
  const started = await startProcess(PRISM, [prism, 'mock', join(root, 'openapi/plantstore.yaml'), '-h', '127.0.0.1'], '/healthz', '-p')
  return { name: PRISM, token: 'ps_bench', ...started }
}
