import { execFile, spawn } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { waitFor } from '../receiver.js'

/**
 * podman as these machines run it: runc and cgroupfs, and no default ulimits (with crun or podman's
 * default ulimits a container fails to start on this kernel). A containers.conf of the tests' own, so
 * that nothing on the machine is changed.
 */
const conf = join(mkdtempSync(join(tmpdir(), 'plantstore-podman-')), 'containers.conf')
writeFileSync(conf, '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n\n[containers]\ndefault_ulimits = []\n')
export const podmanEnv = { ...process.env, CONTAINERS_CONF: conf }

export interface Result { code: number, stdout: string, stderr: string }

/** Runs a command to its end; never throws: the caller reads the exit code. */
export function run (command: string, args: string[], { input, timeoutMs = 600_000, env = podmanEnv, cwd }: {
  input?: string, timeoutMs?: number, env?: NodeJS.ProcessEnv, cwd?: string
} = {}): Promise<Result> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { env, cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr: error !== null && typeof error.code !== 'number' ? `${stderr}${error.message}` : stderr })
    })
    if (input !== undefined) child.stdin?.end(input)
  })
}

export const podman = (args: string[], options?: Parameters<typeof run>[2]) => run('podman', args, options)

/** Like podman(), but a failure throws with what podman said. */
export async function podmanOk (args: string[], options?: Parameters<typeof run>[2]): Promise<string> {
  const result = await podman(args, options)
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}:\n${result.stderr.slice(-4000)}`)
  return result.stdout
}

/** A long build's output streams to this process's stderr (a CI log shows where it is); throws on failure. */
export function stream (command: string, args: string[], { cwd, env = podmanEnv }: { cwd?: string, env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let tail = ''
    const keep = (chunk: Buffer) => { tail = (tail + chunk.toString()).slice(-8000) }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('error', reject)
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${tail}`)))
  })
}

/**
 * Why containers cannot run here, or undefined when they can: podman, mmdebstrap and podman-compose
 * installed, and podman able to start a container (from a root of /bin/true and its libraries alone, so
 * that no image is needed to find out). The answer is one line, for the skip message.
 */
export async function containerRuntimeMissing (): Promise<string | undefined> {
  for (const tool of ['podman', 'runc', 'mmdebstrap', 'podman-compose']) {
    const found = await run('sh', ['-c', `command -v ${tool}`])
    if (found.code !== 0) return `${tool} is not installed (apt-get install podman runc mmdebstrap podman-compose)`
  }
  const root = mkdtempSync(join(tmpdir(), 'plantstore-rootfs-'))
  try {
    const libraries = (await run('ldd', ['/bin/true'])).stdout.match(/\/\S+/g) ?? []
    for (const file of ['/bin/true', ...libraries]) {
      mkdirSync(join(root, dirname(file)), { recursive: true })
      copyFileSync(file, join(root, file))
      chmodSync(join(root, file), 0o755)
    }
    const started = await podman(['run', '--rm', '--network', 'none', '--rootfs', root, '/bin/true'], { timeoutMs: 60_000 })
    if (started.code !== 0) return `podman cannot start a container on this machine: ${started.stderr.trim().split('\n').at(-1) ?? started.code}`
    return undefined
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/** Waits until an HTTP URL answers 2xx; fails after `ms`. */
export const answering = (url: string, ms = 60_000) =>
  waitFor(() => fetch(url).then((res) => res.ok, () => false), ms, `${url} to answer 2xx`)

/**
 * Starts `image` as `name` with a read-only root, `volume` on /data and 8080 published on a free
 * loopback port, and waits for /readyz; answers the service's URL.
 */
export async function startService (name: string, image: string, volume: string): Promise<string> {
  await podmanOk(['run', '--detach', '--name', name, '--read-only', '--volume', `${volume}:/data`, '--publish', '127.0.0.1::8080', image])
  const url = `http://${(await podmanOk(['port', name, '8080/tcp'])).trim().split('\n')[0]}`
  await answering(`${url}/readyz`)
  return url
}
