import { TooManyRequests } from '../contract/errors.js'
import type { ApiError } from '../contract/errors.js'
import { WindowCounter } from '../lib/window-counter.js'

/**
 * Failed authentications per client address and minute, wherever a credential is checked (the API's
 * bearer tokens and `/metrics`' own token): past the limit, a missing or wrong credential gets 429,
 * so guessing is slowed; a valid credential is never held back (neighbours behind one NAT).
 */
export class AuthFailureLimiter {
  readonly #limit: number
  readonly #failures = new WindowCounter()

  /** `limit` 0: no limit. */
  constructor (limit: number) {
    this.#limit = limit
  }

  /** Throws the failure, or 429 once `address` has failed `limit` times this minute. */
  fail (address: string, error: ApiError): never {
    if (this.#limit === 0) throw error
    if (this.#failures.count(address) >= this.#limit) {
      throw new TooManyRequests(this.#failures.retryAfterSeconds(address), 'too many failed authentications from this address')
    }
    this.#failures.hit(address)
    throw error
  }
}
