import { MessageChannel } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { JobThread } from '../../lib/thread-channel.js'
import { spawnWorker } from '../../lib/worker-thread.js'
import type { SqliteSynchronous } from './connection.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

/**
 * The writer thread (see writer-worker.ts). Other threads (the webhook dispatcher's) get ports of
 * their own into the same thread, so their writes join the same batches.
 */
export class SqliteWriter {
  readonly #thread: JobThread<WriteJob, WriteResult>

  constructor (path: string, synchronous: SqliteSynchronous) {
    this.#thread = new JobThread('SQLite writer', () => spawnWorker(import.meta.url, 'writer-worker', {
      name: 'sqlite-writer',
      workerData: { path, synchronous }
    }))
  }

  /** Runs one batch on the writer thread; rejects with an error carrying the driver's `code`. */
  run (jobs: WriteJob[]): Promise<WriteResult[]> {
    return this.#thread.run(jobs)
  }

  /** A port another thread can wrap in a ThreadChannel to submit jobs to this writer. */
  connect (): MessagePort {
    const { port1, port2 } = new MessageChannel()
    this.#thread.post({ attach: port2 }, [port2])
    return port1
  }

  /** Waits for its last commit. */
  close () {
    return this.#thread.close()
  }
}
