/**
 * An async task run when woken: wakes coalesce, one run at a time (a wake during a run runs it once more
 * after), and runs start at least `minGapMs` apart. A run that answers false did no work and does not
 * count toward the gap.
 */
export class CoalescedTask {
  readonly #run: () => Promise<boolean>
  readonly #minGapMs: number
  #running: Promise<void> | undefined
  #again = false
  #lastStartAt = 0
  #scheduled: NodeJS.Timeout | undefined
  #stopped = false

  constructor (run: () => Promise<boolean>, minGapMs: number) {
    this.#run = run
    this.#minGapMs = minGapMs
  }

  wake () {
    if (this.#stopped || this.#scheduled !== undefined) return
    if (this.#running !== undefined) {
      this.#again = true
      return
    }
    const wait = this.#lastStartAt + this.#minGapMs - Date.now()
    if (wait > 0) {
      this.#scheduled = setTimeout(() => {
        this.#scheduled = undefined
        this.wake()
      }, wait)
      return
    }
    const previousStartAt = this.#lastStartAt
    this.#lastStartAt = Date.now()
    this.#running = this.#run().then((worked) => {
      if (!worked) this.#lastStartAt = previousStartAt
    }, () => {}).finally(() => {
      this.#running = undefined
      if (this.#again) {
        this.#again = false
        this.wake()
      }
    })
  }

  /** No more runs; waits for the one under way. */
  async stop () {
    this.#stopped = true
    clearTimeout(this.#scheduled)
    await this.#running
  }
}
