import { MessageChannel } from 'node:worker_threads'
import type { MessagePort, Worker } from 'node:worker_threads'
import { spawnWorker } from '../../lib/worker-thread.js'
import type { SqliteSynchronous } from './connection.js'
import { WriteChannel } from './write-channel.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

/**
 * The writer thread (see writer-worker.ts) and the channel to it. Other threads (the webhook
 * dispatcher's) get ports of their own into the same thread, so their writes join the same batches.
 */
export class SqliteWriter {
  readonly #path: string
  readonly #synchronous: SqliteSynchronous
  #worker: { thread: Worker, channel: WriteChannel } | undefined

  constructor (path: string, synchronous: SqliteSynchronous) {
    this.#path = path
    this.#synchronous = synchronous
  }

  /** Runs one batch on the writer thread; rejects with an error carrying the driver's `code`. */
  run (jobs: WriteJob[]): Promise<WriteResult[]> {
    return this.#ensureWorker().channel.run(jobs)
  }

  /** A port another thread can wrap in a WriteChannel to submit jobs to this writer. */
  connect (): MessagePort {
    const { port1, port2 } = new MessageChannel()
    this.#ensureWorker().thread.postMessage({ attach: port2 }, [port2])
    return port1
  }

  async close () {
    const worker = this.#worker
    if (worker === undefined) return
    this.#worker = undefined
    const exited = new Promise((resolve) => worker.thread.once('exit', resolve))
    // Unreferenced while it runs (it must not keep a finished process alive), but its last commit is awaited.
    worker.thread.ref()
    worker.thread.postMessage({ close: true })
    await exited
  }

  #ensureWorker () {
    if (this.#worker !== undefined) return this.#worker
    const thread = spawnWorker(import.meta.url, 'writer-worker', {
      name: 'sqlite-writer',
      workerData: { path: this.#path, synchronous: this.#synchronous }
    })
    const worker = { thread, channel: new WriteChannel(thread) }
    // A writer that dies fails what it had in hand (nothing of it was acknowledged); the next batch starts a new one.
    const fail = (error: unknown) => {
      if (this.#worker === worker) this.#worker = undefined
      worker.channel.fail(error)
    }
    thread.on('error', fail)
    thread.on('exit', () => fail(new Error('the SQLite writer thread exited')))
    thread.unref()
    this.#worker = worker
    return worker
  }
}
