import { Worker } from 'node:worker_threads'
import type { WorkerOptions } from 'node:worker_threads'

/**
 * Starts a worker thread on a module next to `from` (`name` without extension). Under tsx (tests, dev)
 * the modules are TypeScript, and the worker then registers tsx itself before importing it.
 */
export function spawnWorker (from: string, name: string, options: WorkerOptions): Worker {
  const extension = from.slice(from.lastIndexOf('.'))
  const url = new URL(`./${name}${extension}`, from)
  if (extension !== '.ts') return new Worker(url, options)
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}) })`,
    { ...options, eval: true })
}
