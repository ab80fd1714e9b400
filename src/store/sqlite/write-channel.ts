import type { MessagePort, Worker } from 'node:worker_threads'
import type { WriteJob, WriteResult } from './write-jobs.js'

interface Waiting { resolve: (results: WriteResult[]) => void, reject: (error: unknown) => void }

/** What the writer thread answers to one `{ seq, jobs }` message. */
export interface WriteReply { seq: number, results?: WriteResult[], error?: { code?: string, message?: string } }

/**
 * Sends batches of write jobs to the writer thread over a port (the thread's own, or one it was handed)
 * and answers each with its results; rejects with an error carrying the driver's `code`. The port keeps
 * the process alive while a batch is waiting for its answer, and only then: an idle writer never holds
 * a finished process open, and a command's last write is never cut off by the process ending.
 */
export class WriteChannel {
  readonly #target: Worker | MessagePort
  readonly #waiting = new Map<number, Waiting>()
  #seq = 0

  constructor (target: Worker | MessagePort) {
    this.#target = target
    target.unref()
    target.on('message', (reply: WriteReply) => {
      const waiting = this.#waiting.get(reply.seq)
      this.#waiting.delete(reply.seq)
      if (this.#waiting.size === 0) this.#target.unref()
      if (reply.error !== undefined) waiting?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
      else waiting?.resolve(reply.results!)
    })
  }

  run (jobs: WriteJob[]): Promise<WriteResult[]> {
    const seq = ++this.#seq
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#target.ref()
      this.#waiting.set(seq, { resolve, reject })
      this.#target.postMessage({ seq, jobs })
    })
  }

  /** Fails every batch still waiting (the thread is gone: nothing of them was acknowledged). */
  fail (error: unknown) {
    for (const waiting of this.#waiting.values()) waiting.reject(error)
    this.#waiting.clear()
    this.#target.unref()
  }
}
