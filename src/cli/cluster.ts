import cluster from 'node:cluster'
import type { Worker } from 'node:cluster'

/**
 * The primary of `serve --workers N`: forks N copies of this command, which share the listening port
 * (node:cluster hands connections out), restarts a worker that dies, and on SIGTERM/SIGINT lets every
 * worker drain and exits 0. A worker that fails before it ever listened (bad configuration, port in
 * use) has printed its one line; the primary then stops the others and exits 1.
 */
export function runPrimary (workers: number) {
  let stopping = false
  const listening = new WeakSet<Worker>()

  const fork = () => {
    const worker = cluster.fork()
    worker.on('listening', () => listening.add(worker))
  }

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0)
      return
    }
    if (!listening.has(worker)) {
      stopping = true
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM')
      process.exitCode = 1
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1)
      return
    }
    process.stderr.write(`plantstore: worker ${worker.process.pid} ended (${signal ?? `code ${code}`}); starting another\n`)
    setTimeout(fork, 500).unref()
  })

  const shutdown = () => {
    if (stopping) return
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)

  for (let i = 0; i < workers; i++) fork()
}
