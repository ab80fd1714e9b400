import { execFile, execFileSync, spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'
import { fileURLToPath } from 'node:url'

// The built executable, as `npm ci` leaves it and package.json's bin names it.
export const executable = fileURLToPath(new URL('../bin/plantstore.js', import.meta.url))
export const workdir = mkdtempSync(join(tmpdir(), 'plantstore-cli-'))
after(() => rmSync(workdir, { recursive: true, force: true }))
// A clean environment, so that a developer's PLANTSTORE_* settings cannot leak into the tests.
export const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PLANTSTORE_')))

let dbCount = 0
/** A new SQLite file's URL, with no file there yet: only serve and migrate create one. */
export const newDatabaseUrl = () => `sqlite:${join(workdir, `store-${++dbCount}`, 'plants.db')}`
/** A new, empty (migrated) SQLite store's URL. */
export function newDatabase () {
  const url = newDatabaseUrl()
  execFileSync(process.execPath, [executable, 'migrate', '--database', url], { env: cleanEnv })
  return url
}

export function run (args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number, stdout: string, stderr: string }>((resolve) => {
    execFile(process.execPath, [executable, ...args], { env: { ...cleanEnv, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr })
    })
  })
}

const children = new Set<ChildProcessWithoutNullStreams>()
// A failed assertion must not leave a server running, or the test process would never end.
after(() => { for (const child of children) child.kill('SIGKILL') })

export interface Server {
  child: ChildProcessWithoutNullStreams, url: string, stdout: () => string, stderr: () => string, exited: Promise<number | null>
}

/** Starts `plantstore serve` on a free port and waits for its "listening" log line. */
export function serve (database: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Server> {
  return startServe(['--database', database, ...extra], undefined, env)
}

/** Starts `plantstore serve` in `cwd`, on its default store there (./data/plantstore.db). */
export function serveIn (cwd: string, extra: string[] = []): Promise<Server> {
  return startServe(extra, cwd)
}

function startServe (args: string[], cwd?: string, env: Record<string, string> = {}): Promise<Server> {
  // No load shedding, as in the in-process tests (helper.ts): on a loaded machine a process just
  // started can lag past the default second while it starts, and shed a test's first requests.
  const child = spawn(process.execPath, [executable, 'serve', '--port', '0', ...args], { env: { ...cleanEnv, PLANTSTORE_MAX_EVENT_LOOP_DELAY: '0', ...env }, cwd })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    children.delete(child)
    resolve(code)
  }))
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)
      if (match !== null) resolve({ child, url: match[1]!, stdout: () => stdout, stderr: () => stderr, exited })
    })
    exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
}

export async function stop (server: Server) {
  server.child.kill('SIGTERM')
  return server.exited
}

export const createPlant = (url: string, token: string, body: unknown) => fetch(`${url}/plants`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body)
})
