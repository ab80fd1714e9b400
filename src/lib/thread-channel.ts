import type { MessagePort } from 'node:worker_threads'

/** An error as it crosses threads: a structured clone of an Error would drop the driver's `code`. */
export interface SentError { code?: string, message?: string }

/** What a thread answers to one `{ seq, jobs }` message: a result for each job, or the error that failed them all. */
export interface ThreadReply<Result> { seq: number, results?: Result[], error?: SentError }

/** The error caught on one thread, as it is sent to another. */
export function sentError (error: unknown): SentError {
  const { code, message } = error as SentError
  return { code, message }
}

/** The error another thread sent, with its `code`. */
export function receivedError ({ code, message }: SentError) {
  return Object.assign(new Error(message), { code })
}

/**
 * Sends batches of jobs over a port to a thread that answers each with a ThreadReply; rejects with an
 * error carrying the thread's `code`. The port keeps the process alive only while a batch waits.
 */
export class ThreadChannel<Job, Result> {
  readonly #port: MessagePort
  readonly #waiting = new Map<number, { resolve: (results: Result[]) => void, reject: (error: unknown) => void }>()
  #seq = 0

  constructor (port: MessagePort) {
    this.#port = port
    port.unref()
    port.on('message', (reply: ThreadReply<Result>) => {
      const waiting = this.#waiting.get(reply.seq)
      this.#waiting.delete(reply.seq)
      if (this.#waiting.size === 0) port.unref()
      if (reply.error !== undefined) waiting?.reject(receivedError(reply.error))
      else waiting?.resolve(reply.results!)
    })
  }

  run (jobs: Job[]): Promise<Result[]> {
    const seq = ++this.#seq
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#port.ref()
      this.#waiting.set(seq, { resolve, reject })
      this.#port.postMessage({ seq, jobs })
    })
  }
}
