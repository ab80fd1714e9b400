import { Pool } from 'undici'
import type { Delivery } from '../store/store.js'
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
 * are not followed: only a 2xx acknowledges.
 */
export class Sender {
  readonly #pool: Pool
  readonly #path: string
  readonly #timeoutMs: number
  #signer: { secret: string, signer: Signer } | undefined

  constructor (url: string, { timeoutMs, connections }: { timeoutMs: number, connections: number }) {
    const target = new URL(url)
    this.#path = `${target.pathname}${target.search}`
    this.#timeoutMs = timeoutMs
    this.#pool = new Pool(target.origin, {
      connections,
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4000
    })
  }

  send (delivery: Delivery): Promise<AttemptOutcome> {
    const started = performance.now()
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = [
      'content-type', 'application/json',
      'user-agent', 'plantstore-webhooks',
      'webhook-id', delivery.messageId,
      'webhook-timestamp', String(timestamp),
      'webhook-signature', this.#signerFor(delivery.secret).sign(delivery.messageId, timestamp, delivery.payload)
    ]
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

  /** The secret rarely changes (a rotation), so its key is kept between deliveries. */
  #signerFor (secret: string): Signer {
    if (this.#signer?.secret !== secret) this.#signer = { secret, signer: new Signer([secret]) }
    return this.#signer.signer
  }

  async close () {
    await this.#pool.destroy()
  }

  #describe (cause: unknown): string {
    const { name, code } = cause as { name?: string, code?: unknown }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT') return `no answer within ${this.#timeoutMs} ms`
    return `request failed: ${typeof code === 'string' ? code : name ?? 'unknown error'}`
  }
}
