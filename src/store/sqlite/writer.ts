import { Worker } from 'node:worker_threads'
import type { SqliteSynchronous } from './connection.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

interface Waiting { resolve: (results: WriteResult[]) => void, reject: (error: unknown) => void }

// Under tsx (tests, dev) this module is TypeScript and so is the worker, which then needs tsx itself.
const extension = import.meta.url.slice(import.meta.url.lastIndexOf('.'))
const workerUrl = new URL(`./writer-worker${extension}`, import.meta.url)

function spawnWorker (path: string, synchronous: SqliteSynchronous): Worker {
  const workerData = { path, synchronous }
  if (extension !== '.ts') return new Worker(workerUrl, { workerData })
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}) })`,
    { eval: true, workerData })
}

/** A write-batch runner on a writer thread (see writer-worker.ts). */
export class SqliteWriter {
  readonly #path: string
  readonly #synchronous: SqliteSynchronous
  readonly #waiting = new Map<number, Waiting>()
  #worker: Worker | undefined
  #seq = 0

  constructor (path: string, synchronous: SqliteSynchronous) {
    this.#path = path
    this.#synchronous = synchronous
  }

  /** Runs one batch on the writer thread; rejects with an error carrying the driver's `code`. */
  run (jobs: WriteJob[]): Promise<WriteResult[]> {
    const seq = ++this.#seq
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject })
      this.#ensureWorker().postMessage({ seq, jobs })
    })
  }

  async close () {
    const worker = this.#worker
    if (worker === undefined) return
    this.#worker = undefined
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    worker.postMessage({ close: true })
    await exited
  }

  #ensureWorker (): Worker {
    if (this.#worker !== undefined) return this.#worker
    const worker = spawnWorker(this.#path, this.#synchronous)
    worker.on('message', (message: { seq: number, results?: WriteResult[], error?: { code?: string, message?: string } }) => {
      const waiting = this.#waiting.get(message.seq)
      this.#waiting.delete(message.seq)
      if (message.error !== undefined) waiting?.reject(Object.assign(new Error(message.error.message), { code: message.error.code }))
      else waiting?.resolve(message.results!)
    })
    // A writer that dies fails what it had in hand (nothing of it was acknowledged); the next batch starts a new one.
    const fail = (error: unknown) => {
      if (this.#worker === worker) this.#worker = undefined
      for (const waiting of this.#waiting.values()) waiting.reject(error)
      this.#waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', () => fail(new Error('the SQLite writer thread exited')))
    worker.unref()
    this.#worker = worker
    return worker
  }
}
