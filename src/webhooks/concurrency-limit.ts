/**
 * How many deliveries may be in flight to one subscriber: grows while it answers quickly, shrinks when
 * it fails or slows down (additive increase, multiplicative decrease, as TCP's congestion window).
 * "Slowly" is relative to the fastest answers seen lately, so a receiver that always takes two seconds
 * still gets many deliveries at once, while one that slows down under load gets fewer.
 */
export class ConcurrencyLimit {
  readonly #max: number
  #limit: number
  /** Below this the limit doubles each round trip (slow start); above it, it grows by one per round trip. */
  #threshold: number
  /** The fastest recent answer, in ms; it drifts upward so that a lasting slowdown becomes the new normal. */
  #baselineMs = Number.POSITIVE_INFINITY
  #lastDecrease = 0

  constructor (initial: number, max: number) {
    this.#max = max
    this.#limit = Math.min(initial, max)
    this.#threshold = max
  }

  /** Deliveries that may be in flight now (at least one). */
  get current (): number {
    return Math.max(1, Math.floor(this.#limit))
  }

  /** A 2xx answer after `latencyMs`. */
  succeeded (latencyMs: number, now = Date.now()) {
    this.#baselineMs = Math.min(this.#baselineMs * 1.01, latencyMs)
    if (latencyMs > Math.max(2 * this.#baselineMs, this.#baselineMs + 100)) {
      this.#decrease(0.8, now)
      return
    }
    this.#limit = Math.min(this.#max, this.#limit + (this.#limit < this.#threshold ? 1 : 1 / this.#limit))
  }

  /** An error, a non-2xx answer or no answer in time. */
  failed (now = Date.now()) {
    this.#decrease(0.5, now)
  }

  #decrease (factor: number, now: number) {
    // Answers to one round of requests arrive together: they are one signal, not one each.
    const roundTripMs = Number.isFinite(this.#baselineMs) ? this.#baselineMs : 100
    if (now - this.#lastDecrease < roundTripMs) return
    this.#lastDecrease = now
    this.#limit = Math.max(1, this.#limit * factor)
    this.#threshold = Math.max(2, this.#limit)
  }
}
