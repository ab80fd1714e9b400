import { setFlagsFromString } from 'node:v8'
import { Worker } from 'node:worker_threads'
import type { WorkerOptions } from 'node:worker_threads'

/**
 * `plantstore` runs with --max-semi-space-size=8 for its main thread (see cli/main.ts), but V8 lets that
 * flag override every isolate's own resource limits: the threads' 8 MiB young generation was 16, and
 * the dispatcher filled it under load. The flag is read only when an isolate is made, so clearing it
 * once the main isolate exists gives each thread the young generation its resourceLimits ask for.
 */
function threadsKeepTheirOwnLimits (options: WorkerOptions) {
  if (options.resourceLimits?.maxYoungGenerationSizeMb !== undefined) setFlagsFromString('--max-semi-space-size=0')
}

/**
 * Starts a worker thread on a module next to `from` (`name` without extension). Under tsx (tests, dev)
 * the modules are TypeScript, and the worker then registers tsx itself before importing it.
 */
export function spawnWorker (from: string, name: string, options: WorkerOptions): Worker {
  threadsKeepTheirOwnLimits(options)
  const extension = from.slice(from.lastIndexOf('.'))
  const url = new URL(`./${name}${extension}`, from)
  if (extension !== '.ts') return new Worker(url, options)
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}) })`,
    { ...options, eval: true })
}
