const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

/** Exponential backoff with ±25 % jitter, so that a recovering subscriber is not hit by every retry at once. */
export function retryDelay (attempts: number, baseMs: number, random = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS)
  return Math.round(exponential * (0.75 + random() * 0.5))
}

/** One timer for a lane's retries, set for the earliest one due: `onDue` is called then. */
export class RetryTimer {
  #timer: NodeJS.Timeout | undefined
  #at = Number.POSITIVE_INFINITY
  readonly #onDue: () => void

  constructor (onDue: () => void) {
    this.#onDue = onDue
  }

  /** A retry is due at `time` (Unix ms). */
  at (time: number) {
    if (time >= this.#at) return
    clearTimeout(this.#timer)
    this.#at = time
    this.#timer = setTimeout(() => {
      this.#at = Number.POSITIVE_INFINITY
      this.#onDue()
    }, Math.max(0, time - Date.now()))
    this.#timer.unref()
  }

  stop () {
    clearTimeout(this.#timer)
  }
}
