/**
 * A throttled subscriber's starts, spaced evenly at `perSecond` a second; without a throttle (null),
 * every start may go at once.
 */
export class Pacer {
  perSecond: number | null
  /** The earliest time the next delivery may start. */
  #nextStart = 0
  #timer: NodeJS.Timeout | undefined
  readonly #onReady: () => void

  constructor (perSecond: number | null, onReady: () => void) {
    this.perSecond = perSecond
    this.#onReady = onReady
  }

  /** Whether a delivery may start now; else a timer calls onReady when one may. */
  ready (): boolean {
    if (this.perSecond === null) return true
    const now = Date.now()
    if (now >= this.#nextStart) return true
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => { this.#timer = undefined; this.#onReady() }, Math.ceil(this.#nextStart - now))
      this.#timer.unref()
    }
    return false
  }

  /** A delivery started: the next one waits its turn. */
  started () {
    if (this.perSecond !== null) this.#nextStart = Math.max(Date.now(), this.#nextStart) + 1000 / this.perSecond
  }

  stop () {
    clearTimeout(this.#timer)
  }
}
