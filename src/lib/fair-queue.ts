/**
 * Runs tasks at most `concurrency` at a time, taking turns between keys: a key with many tasks waiting
 * gets one turn a round, so one caller's pile never makes the others wait behind it.
 */
export class FairQueue {
  readonly #concurrency: number
  #running = 0
  /** Each key's waiting tasks (each the start of its turn); the map's order is the order of turns. */
  readonly #waiting = new Map<string, Array<() => void>>()

  constructor (concurrency: number) {
    this.#concurrency = concurrency
  }

  /** Runs `task` in its turn; one whose `signal` aborts while it waits leaves the line, rejected with the reason. */
  async run<T> (key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted()
    if (this.#running < this.#concurrency) this.#running++
    else await this.#turn(key, signal)
    try {
      return await task()
    } finally {
      this.#handOn()
    }
  }

  #turn (key: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const leave = () => {
        const queue = this.#waiting.get(key)
        const at = queue?.indexOf(start) ?? -1
        if (at < 0) return // its turn came first
        queue!.splice(at, 1)
        if (queue!.length === 0) this.#waiting.delete(key)
        reject(signal!.reason)
      }
      const start = () => {
        signal?.removeEventListener('abort', leave)
        resolve()
      }
      const queue = this.#waiting.get(key)
      if (queue === undefined) this.#waiting.set(key, [start])
      else queue.push(start)
      signal?.addEventListener('abort', leave, { once: true })
    })
  }

  /** A finished task's place goes to the key whose turn it is, which then goes to the back of the line. */
  #handOn () {
    const turn = this.#waiting.entries().next()
    if (turn.done === true) {
      this.#running--
      return
    }
    const [key, queue] = turn.value
    this.#waiting.delete(key)
    const next = queue.shift()!
    if (queue.length > 0) this.#waiting.set(key, queue)
    next()
  }
}
