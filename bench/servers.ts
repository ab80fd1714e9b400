import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshDatabase } from '../test/databases.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const cli = join(root, 'dist/cli/main.js')

export interface BenchServer {
  name: string
  url: string
  pid: number
  /** The bearer token requests carry (any value for servers that do not check). */
  token: string
  stop: () => Promise<void>
}

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Starts a server process with its output discarded, and waits until `readyPath` answers. */
async function start (name: string, args: string[], port: number, token: string, cleanup = () => {}, readyPath = '/healthz'): Promise<BenchServer> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    const ready = await fetch(url + readyPath).then((res) => res.status < 500, () => false)
    if (ready) break
    if (Date.now() > deadline) throw new Error(`${name} did not start`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    name,
    url,
    pid: child.pid!,
    token,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      cleanup()
    }
  }
}

export async function startCeiling () {
  const port = await freePort()
  return start('node:http ceiling', [join(root, 'bench/ceiling-server.mjs'), String(port)], port, 'none', () => {}, '/')
}

/** `plantstore serve` with default settings (durable: WAL, synchronous=FULL) on a new database. */
export async function startPlantstore (name: string, database: string, cleanup = () => {}) {
  const port = await freePort()
  const token = execFileSync(process.execPath, [cli, 'tokens', 'create', '--name', 'bench', '--database', database], { encoding: 'utf8' }).trim()
  return start(name, [cli, 'serve', '--port', String(port), '--database', database], port, token, cleanup)
}

export async function startPlantstoreSqlite () {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-bench-'))
  return startPlantstore('plantstore, SQLite', `sqlite:${join(dir, 'plants.db')}`, () => rmSync(dir, { recursive: true, force: true }))
}

export async function startPlantstorePostgres () {
  return startPlantstore('plantstore, PostgreSQL', await freshDatabase('postgres:fresh'))
}

/** The Stoplight Prism mock serving our document: what a user might run instead. */
export async function startPrism () {
  const port = await freePort()
  const prism = join(root, 'node_modules/@stoplight/prism-cli/dist/index.js')
  return start('Prism mock', [prism, 'mock', join(root, 'openapi/plantstore.yaml'), '-p', String(port), '-h', '127.0.0.1'],
    port, 'ps_bench', () => {})
}
