import { isIP } from 'node:net'
import { Pool } from 'undici'
import type { Delivery } from '../store/store.js'
import { ALLOW_PRIVATE_HINT, hostOf, isPublicAddress, publicOnlyLookup } from './address-policy.js'
import { Signer } from './signature.js'

/** What one attempt came to: the status (if any answer came), an error unless it was a 2xx, and how long it took. */
export interface AttemptOutcome {
  status: number | null
  error: string | null
  latencyMs: number
}

/**
 * Sends one subscriber's deliveries over keep-alive connections (an undici Pool of up to `connections`
 * sockets), each a signed POST (Standard Webhooks) that must be answered within `timeoutMs`. Redirects
 * are not followed: only a 2xx acknowledges. With `publicOnly` (an integrator's subscription), every
 * connection resolves the host again and refuses an address that is not public (address-policy.ts).
 */
export class Sender {
  readonly #pool: Pool
  readonly #path: string
  readonly #timeoutMs: number
  #signer: { secrets: string, signer: Signer } | undefined
  /** Why every attempt is refused: an integrator's URL whose host is an address literal that is not public. */
  readonly #refused: string | undefined

  constructor (url: string, { timeoutMs, connections, publicOnly }: { timeoutMs: number, connections: number, publicOnly: boolean }) {
    const target = new URL(url)
    this.#path = `${target.pathname}${target.search}`
    const host = hostOf(target)
    // A literal address is never looked up, so it is checked here.
    this.#refused = publicOnly && isIP(host) !== 0 && !isPublicAddress(host) ? `address refused: ${host} is not a public address (${ALLOW_PRIVATE_HINT})` : undefined
    this.#timeoutMs = timeoutMs
    this.#pool = new Pool(target.origin, {
      connections,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4000,
      ...(publicOnly && { connect: { lookup: publicOnlyLookup } })
    })
  }

  /** Sends it once; with `traceparent` (the delivery's span, when traces are on) in that header. */
  send (delivery: Delivery, traceparent?: string): Promise<AttemptOutcome> {
    if (this.#refused !== undefined) return Promise.resolve({ status: null, error: this.#refused, latencyMs: 0 })
    const started = performance.now()
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = [
      'content-type', 'application/json',
      'user-agent', 'plantstore-webhooks',
      'webhook-id', delivery.messageId,
      'webhook-timestamp', String(timestamp),
      'webhook-signature', this.#signerFor(delivery.secrets).sign(delivery.messageId, timestamp, delivery.payload)
    ]
    if (traceparent !== undefined) headers.push('traceparent', traceparent)
    // dispatch() with a handler rather than request(): no response stream per delivery, whose body
    // (if any) is only counted and dropped.
    return new Promise((resolve) => {
      let status: number | null = null
      this.#pool.dispatch({ path: this.#path, method: 'POST', headers, body: delivery.payload }, {
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => { status = statusCode },
        onResponseData: () => {},
        onResponseEnd: () => resolve({
          status,
          error: status !== null && status >= 200 && status <= 299 ? null : `HTTP ${status}`,
          latencyMs: performance.now() - started
        }),
        onResponseError: (_controller, cause) => resolve({ status: null, error: this.#describe(cause), latencyMs: performance.now() - started })
      })
    })
  }

  /** The secrets rarely change (a rotation, the end of its grace period), so their keys are kept between deliveries. */
  #signerFor (secrets: string[]): Signer {
    const key = secrets.join(' ')
    if (this.#signer?.secrets !== key) this.#signer = { secrets: key, signer: new Signer(secrets) }
    return this.#signer.signer
  }

  async close () {
    await this.#pool.destroy()
  }

  #describe (cause: unknown): string {
    const { name, code } = cause as { name?: string, code?: unknown }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT') return `no answer within ${this.#timeoutMs} ms`
    if (code === 'EADDRREFUSED') return `address refused: ${(cause as Error).message}`
    return `request failed: ${typeof code === 'string' ? code : name ?? 'unknown error'}`
  }
}
