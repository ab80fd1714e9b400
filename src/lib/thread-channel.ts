import type { MessagePort, Transferable, Worker } from 'node:worker_threads'

interface Waiting<Result> { resolve: (results: Result[]) => void, reject: (error: unknown) => void }

/** What a thread answers to one `{ seq, jobs }` message: a result for each job, or the error that failed them all. */
export interface ThreadReply<Result> { seq: number, results?: Result[], error?: { code?: string, message?: string } }

/**
 * Sends batches of jobs to a thread over a port (the thread's own, or one it was handed) and answers
 * each with its results; rejects with an error carrying the thread's `code`. The port keeps the
 * process alive while a batch is waiting for its answer, and only then: an idle thread never holds a
 * finished process open, and a command's last job is never cut off by the process ending.
 */
export class ThreadChannel<Job, Result> {
  readonly #target: Worker | MessagePort
  readonly #waiting = new Map<number, Waiting<Result>>()
  #seq = 0
  /** Referenced until the thread exits, whatever is waiting (see `hold`). */
  #held = false

  constructor (target: Worker | MessagePort) {
    this.#target = target
    target.unref()
    target.on('message', (reply: ThreadReply<Result>) => {
      const waiting = this.#waiting.get(reply.seq)
      this.#waiting.delete(reply.seq)
      if (this.#waiting.size === 0 && !this.#held) this.#target.unref()
      if (reply.error !== undefined) waiting?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
      else waiting?.resolve(reply.results!)
    })
  }

  run (jobs: Job[]): Promise<Result[]> {
    const seq = ++this.#seq
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#target.ref()
      this.#waiting.set(seq, { resolve, reject })
      this.#target.postMessage({ seq, jobs })
    })
  }

  /**
   * Keeps the process alive from now on, even once nothing waits: for a thread asked to finish, whose
   * exit is awaited. A reply to a batch sent before still comes, and must not let the process end first.
   */
  hold () {
    this.#held = true
    this.#target.ref()
  }

  /** Fails every batch still waiting (the thread is gone: nothing of them was done). */
  fail (error: unknown) {
    for (const waiting of this.#waiting.values()) waiting.reject(error)
    this.#waiting.clear()
    this.#target.unref()
  }
}

/**
 * A worker thread that answers `{ seq, jobs }` batches, started at its first batch. One that dies fails
 * what it had in hand, and the next batch starts another. It never keeps a finished process alive,
 * but `close` waits for it to finish what it has (`{ close: true }` asks it to, then exit).
 */
export class JobThread<Job, Result> {
  readonly #name: string
  readonly #start: () => Worker
  #worker: { thread: Worker, channel: ThreadChannel<Job, Result> } | undefined

  /** `name` says which thread exited, in the error of what it had in hand. */
  constructor (name: string, start: () => Worker) {
    this.#name = name
    this.#start = start
  }

  run (jobs: Job[]): Promise<Result[]> {
    return this.#ensureWorker().channel.run(jobs)
  }

  /** Posts another kind of message to the thread (starting it if need be). */
  post (message: unknown, transfer: readonly Transferable[] = []) {
    this.#ensureWorker().thread.postMessage(message, transfer)
  }

  async close () {
    const worker = this.#worker
    if (worker === undefined) return
    this.#worker = undefined
    const exited = new Promise((resolve) => worker.thread.once('exit', resolve))
    worker.channel.hold()
    worker.thread.postMessage({ close: true })
    await exited
  }

  #ensureWorker () {
    if (this.#worker !== undefined) return this.#worker
    const thread = this.#start()
    const worker = { thread, channel: new ThreadChannel<Job, Result>(thread) }
    const fail = (error: unknown) => {
      if (this.#worker === worker) this.#worker = undefined
      worker.channel.fail(error)
    }
    thread.on('error', fail)
    thread.on('exit', () => fail(new Error(`the ${this.#name} thread exited`)))
    thread.unref()
    this.#worker = worker
    return worker
  }
}
