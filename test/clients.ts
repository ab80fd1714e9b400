import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { connect } from 'node:net'
import type { Socket } from 'node:net'

/** One request from a given local address (127.0.0.2 and up are other clients on loopback). */
export function requestFrom (url: string, localAddress: string, headers: Record<string, string> = {}, timeoutMs = 5000) {
  const started = performance.now()
  return new Promise<{ status: number, ms: number }>((resolve) => {
    const req = request(url, { localAddress, headers, agent: false, timeout: timeoutMs }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }))
    req.end()
  })
}

/** Probes `urls` from `localAddress` in turn, `count` times; answers each answer's status and duration. */
export async function probe (urls: string[], localAddress: string, count: number, headers: Record<string, string> = {}) {
  const results: Array<{ status: number, ms: number }> = []
  for (let i = 0; i < count; i++) {
    results.push(await requestFrom(urls[i % urls.length]!, localAddress, headers))
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return results
}

/** The p-th percentile (0–100) of durations. */
export function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}

/**
 * An attacker at `localAddress` holding `count` connections to `port`, each reopened as soon as the
 * server closes it, each sending `send` (nothing: an idle socket), until stopped. Bounded by `count`
 * and by the caller's stop.
 */
export function holdConnections (port: number, localAddress: string, count: number, send = '') {
  let stopped = false
  const open = new Set<Socket>()
  let opened = 0
  const one = () => {
    if (stopped) return
    opened++
    const socket = connect({ port, host: '127.0.0.1', localAddress })
    open.add(socket)
    socket.on('connect', () => { if (send !== '') socket.write(send) })
    socket.on('data', () => {})
    socket.on('error', () => {})
    socket.on('close', () => {
      open.delete(socket)
      // Reopened, but not in a tight loop: a refused socket comes back after a breath.
      if (!stopped) setTimeout(one, 5)
    })
  }
  for (let i = 0; i < count; i++) one()
  return {
    get opened () { return opened },
    stop () {
      stopped = true
      for (const socket of open) socket.destroy()
    }
  }
}

/**
 * holdConnections in a child process, as a real attacker is (one of ours would share the server's
 * event loop): each of `sends` (none: idle sockets) on `count` connections. Answers how to stop it,
 * which resolves to how many connections it opened in all. It stops by itself after `seconds`.
 */
export async function attackFrom (port: number, address: string, count: number, sends: string[] = [], seconds = 60) {
  const script = new URL('./fixtures/hold-connections.ts', import.meta.url).pathname
  const child = spawn(process.execPath, ['--import', 'tsx', script, String(port), address, String(count), String(seconds)], {
    env: { ...process.env, PLANTSTORE_ATTACK_SEND: JSON.stringify(sends) }, stdio: ['pipe', 'pipe', 'inherit']
  })
  let out = ''
  child.stdout.on('data', (chunk) => { out += String(chunk) })
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => { if (out.includes('holding')) resolve() })
    child.once('exit', () => reject(new Error('the attacker exited early')))
  })
  let stopped: Promise<number> | undefined
  return {
    stop: () => {
      stopped ??= new Promise<number>((resolve) => {
        child.once('exit', () => resolve((JSON.parse(out.split('\n')[1] ?? '{"opened":0}') as { opened: number }).opened))
        child.stdin.end()
      })
      return stopped
    }
  }
}
