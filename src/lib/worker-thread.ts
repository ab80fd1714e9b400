import { Worker } from 'node:worker_threads'
import type { WorkerOptions } from 'node:worker_threads'

// The threads allocate little at a time: a small young generation keeps their memory small.
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 }

/**
 * Starts a worker thread on the module `name` next to `from`. Under tsx (tests, dev) the modules are
 * TypeScript, and the worker registers tsx itself before importing it.
 */
export function spawnWorker (from: string, name: string, given: WorkerOptions): Worker {
  const options = { ...given, resourceLimits: { ...THREAD_LIMITS, ...given.resourceLimits } }
  const extension = from.slice(from.lastIndexOf('.'))
  const url = new URL(`./${name}${extension}`, from)
  if (extension !== '.ts') return new Worker(url, options)
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}) })`,
    { ...options, eval: true })
}
