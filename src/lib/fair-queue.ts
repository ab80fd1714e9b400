/**
 * Runs tasks at most `concurrency` at a time, taking turns between keys: a key with many tasks waiting
 * gets one turn in each round, so one caller's pile of work never makes everyone else wait behind it.
 */
export class FairQueue {
  readonly #concurrency: number
  #running = 0
  /** Each key's waiting tasks; the map's order is the order of turns. */
  readonly #waiting = new Map<string, Array<() => void>>()

  constructor (concurrency: number) {
    this.#concurrency = concurrency
  }

  async run<T> (key: string, task: () => Promise<T>): Promise<T> {
    if (this.#running < this.#concurrency) this.#running++
    else {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(key)
        if (queue === undefined) this.#waiting.set(key, [resolve])
        else queue.push(resolve)
      })
    }
    try {
      return await task()
    } finally {
      this.#handOn()
    }
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
