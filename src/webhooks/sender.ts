import { Pool } from 'undici'
import type { Delivery } from '../store/store.js'
import { sign } from './signature.js'

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

  async send (delivery: Delivery): Promise<AttemptOutcome> {
    const started = performance.now()
    const timestamp = Math.floor(Date.now() / 1000)
    try {
      const { statusCode, body } = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'plantstore-webhooks',
          'webhook-id': delivery.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(delivery.secret, delivery.messageId, timestamp, delivery.payload)
        },
        body: delivery.payload,
        signal: AbortSignal.timeout(this.#timeoutMs)
      })
      await body.dump()
      const error = statusCode >= 200 && statusCode <= 299 ? null : `HTTP ${statusCode}`
      return { status: statusCode, error, latencyMs: performance.now() - started }
    } catch (cause) {
      return { status: null, error: this.#describe(cause), latencyMs: performance.now() - started }
    }
  }

  async close () {
    await this.#pool.destroy()
  }

  #describe (cause: unknown): string {
    const { name, code } = cause as { name?: string, code?: unknown }
    if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT') return `no answer within ${this.#timeoutMs} ms`
    return `request failed: ${typeof code === 'string' ? code : name ?? 'unknown error'}`
  }
}
