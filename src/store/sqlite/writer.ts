import { MessageChannel } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { receivedError } from '../../lib/thread-channel.js'
import { workerPool } from '../../lib/worker-thread.js'
import type { SqliteSynchronous } from './connection.js'
import type { WriteJob, WriteResult } from './write-jobs.js'
import type { WriterAnswer, WriterTask } from './writer-worker.js'

/**
 * The store's one writer thread (writer-worker.ts). Other threads (the webhook dispatcher's) get ports
 * of their own into it, so that their writes join the same batches.
 */
export class SqliteWriter {
  readonly #thread

  constructor (path: string, synchronous: SqliteSynchronous) {
    // A batch being committed and the next ones arriving: the group commit has 4 at most in flight.
    this.#thread = workerPool<WriterTask, WriterAnswer | undefined>(import.meta.url, 'writer-worker', { threads: 1, perThread: 8, workerData: { path, synchronous } })
  }

  /** Runs one batch on the writer thread; rejects with an error carrying the driver's `code`. */
  async run (jobs: WriteJob[]): Promise<WriteResult[]> {
    const { results, error } = (await this.#thread.run(jobs))!
    if (error !== undefined) throw receivedError(error)
    return results!
  }

  /** A port another thread can wrap in a ThreadChannel to submit jobs to this writer. */
  connect (): MessagePort {
    const { port1, port2 } = new MessageChannel()
    this.#thread.run({ attach: port2 }, [port2]).catch(() => {})
    return port1
  }

  /** Waits for its last commit. */
  close () {
    return this.#thread.close()
  }
}
