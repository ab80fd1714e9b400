import { Worker } from 'node:worker_threads'
import type { WorkerOptions } from 'node:worker_threads'
import { Piscina } from 'piscina'

// The threads allocate little at a time: a small young generation keeps their memory small.
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 }

/** The module `name` next to `from`, with `from`'s extension (TypeScript under tsx, in tests and dev). */
const moduleNextTo = (from: string, name: string) => new URL(`./${name}${from.slice(from.lastIndexOf('.'))}`, from)

/** Starts a worker thread on the module `name` next to `from`. */
export function spawnWorker (from: string, name: string, given: WorkerOptions): Worker {
  return new Worker(moduleNextTo(from, name), { ...given, resourceLimits: { ...THREAD_LIMITS, ...given.resourceLimits } })
}

/**
 * A pool of `threads` threads (piscina) running the default export of the module `name` next to `from`,
 * each with `perThread` tasks in hand. Its threads start with its first task and live until it closes;
 * idle, they never keep the process alive.
 */
export function workerPool<Task, Result> (from: string, name: string, { threads, perThread, workerData, youngGenerationMb }: {
  threads: number, perThread: number, workerData?: unknown, youngGenerationMb?: number
}): { run: (task: Task, transferList?: Array<import('node:worker_threads').Transferable>) => Promise<Result>, close: () => Promise<void> } {
  let pool: Piscina<Task, Result> | undefined
  return {
    run: (task, transferList) => {
      pool ??= new Piscina<Task, Result>({
        filename: moduleNextTo(from, name).href,
        minThreads: threads,
        maxThreads: threads,
        concurrentTasksPerWorker: perThread,
        // The threads wait for tasks on their event loop, which serves their timers and ports too.
        atomics: 'disabled',
        workerData,
        resourceLimits: { ...THREAD_LIMITS, ...(youngGenerationMb !== undefined && { maxYoungGenerationSizeMb: youngGenerationMb }) }
      })
      return pool.run(task, transferList === undefined ? {} : { transferList })
    },
    close: async () => { await pool?.close() }
  }
}
