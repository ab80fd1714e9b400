interface Pending<I, O> { item: I, resolve: (outcome: O) => void, reject: (error: unknown) => void }

/**
 * Group commit: calls made while a batch is being committed (or during one round of I/O, when none is)
 * are run together as the next batch, in one transaction with one fsync. Each caller still gets its
 * own outcome, and only after its whole batch is committed: nobody is answered before their row is
 * durable. Under load batches grow instead of queueing commits.
 */
export class GroupCommit<I, O> {
  readonly #runBatch: (items: I[]) => O[] | Promise<O[]>
  readonly #maxBatch: number
  readonly #onBatch: ((items: I[]) => void) | undefined
  readonly #maxInFlight: number
  readonly #lingerMs: number
  #pending: Array<Pending<I, O>> = []
  #scheduled = false
  #inFlight = 0

  /** `runBatch` runs every item in one transaction and answers their outcomes in order, or throws. */
  constructor (runBatch: (items: I[]) => O[] | Promise<O[]>, options: {
    maxBatch?: number, onBatch?: (items: I[]) => void, maxInFlight?: number, lingerMs?: number
  } = {}) {
    this.#runBatch = runBatch
    this.#maxBatch = options.maxBatch ?? 512
    this.#onBatch = options.onBatch
    // A runner that queues (a writer thread) can take the next batch while it commits this one.
    this.#maxInFlight = options.maxInFlight ?? 1
    // For writes nobody waits on (bookkeeping): a batch that finds the runner idle waits this long for
    // company, so a steady trickle makes a few statements of many rows rather than one statement a row.
    this.#lingerMs = options.lingerMs ?? 0
  }

  submit (item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject })
      if (!this.#scheduled && this.#inFlight < this.#maxInFlight) {
        this.#scheduled = true
        const flush = () => {
          this.#scheduled = false
          this.#flush().catch(() => {})
        }
        if (this.#lingerMs > 0) setTimeout(flush, this.#lingerMs)
        else setImmediate(flush)
      }
    })
  }

  async #flush () {
    if (this.#inFlight >= this.#maxInFlight || this.#pending.length === 0) return
    const batch = this.#pending.splice(0, this.#maxBatch)
    this.#inFlight++
    try {
      const items = batch.map((pending) => pending.item)
      const outcomes = await this.#runBatch(items)
      this.#onBatch?.(items)
      batch.forEach((pending, i) => pending.resolve(outcomes[i]!))
    } catch (error) {
      // The transaction rolled back as a whole: nobody in it was committed, so everyone hears of it.
      for (const pending of batch) pending.reject(error)
    } finally {
      this.#inFlight--
      // What arrived meanwhile is the next batch.
      this.#flush().catch(() => {})
    }
  }
}
