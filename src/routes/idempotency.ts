import { hash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { IdempotencyKeyInFlight, IdempotencyKeyReused, SchemaMismatch } from '../contract/errors.js'
import type { IdempotencyKey, PlantStore, WriteRequest } from '../store/store.js'

const KEY = /^[\x21-\x7e]{1,255}$/
const JSON_TYPE = 'application/json; charset=utf-8'

/** The body as the request's hash sees it: parsed, so that spacing does not make another request. */
const bodyText = (body: unknown) => JSON.stringify(body ?? null, (_key, value: unknown) => typeof value === 'bigint' ? value.toString() : value)

/**
 * The request's Idempotency-Key, scoped to its caller and with a hash of what it asks (method, path,
 * If-Match, body, and If-None-Match only when sent, so that keys kept before it hash as they did);
 * undefined without the header; 400 when it is not 1 to 255 visible ASCII characters.
 */
export function idempotencyKey (request: FastifyRequest, retentionMs: number): IdempotencyKey | undefined {
  const header = request.headers['idempotency-key']
  if (header === undefined) return undefined
  if (typeof header !== 'string' || !KEY.test(header)) throw new SchemaMismatch('headers/idempotency-key must be 1 to 255 visible ASCII characters')
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = request.headers
  const asked = JSON.stringify([request.method, request.url, ifMatch ?? null, bodyText(request.body), ...ifNoneMatch === undefined ? [] : [ifNoneMatch]])
  return { owner: request.principal!.key, key: header, hash: hash('sha256', asked, 'base64url'), expiresAt: Date.now() + retentionMs }
}

/**
 * Runs a write request and sends its answer (kept or replayed for its key). A key held by a request of
 * this process still running is 409 (3005) at once; the store says so for another instance's.
 */
export class KeyedWrites {
  readonly #running = new Set<string>()
  readonly #store: PlantStore

  constructor (store: PlantStore) {
    this.#store = store
  }

  async send (request: WriteRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { key } = request
    const held = key === undefined ? undefined : `${key.owner}\n${key.key}`
    if (held !== undefined && this.#running.has(held)) throw new IdempotencyKeyInFlight(JSON.stringify(key!.key))
    if (held !== undefined) this.#running.add(held)
    let response
    try {
      response = await this.#store.write(request)
    } finally {
      if (held !== undefined) this.#running.delete(held)
    }
    if (response.kind === 'key-reused') throw new IdempotencyKeyReused(JSON.stringify(key!.key))
    if (response.kind === 'key-in-flight') throw new IdempotencyKeyInFlight(JSON.stringify(key!.key))
    const { answer, replayed } = response
    if (replayed) reply.header('idempotent-replayed', 'true')
    if (answer.etag !== undefined) reply.header('etag', answer.etag)
    reply.code(answer.status)
    return answer.body === undefined ? reply.send() : reply.type(JSON_TYPE).send(answer.body)
  }
}
