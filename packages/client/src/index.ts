/**
 * A typed client of the Plant Store API: `import { createPlantStoreClient } from '@plantstore/client'`.
 * Its types come from the service's OpenAPI document at build time (openapi-types.ts, by
 * openapi-typescript), so they cannot drift from it; ids are `bigint` both ways, so no int64 is ever
 * rounded. It depends on nothing of the server.
 */
import { parse as parseLossless } from 'lossless-json'
import { followEvents } from './events.js'
import type { EventsOptions } from './events.js'

export type { EventsOptions, StoreEvent } from './events.js'
import type { components, operations } from './openapi-types.js'

type Schemas = components['schemas']

/** A plant as the API answers it, its id exact. */
export type Plant = Omit<Schemas['Plant'], 'id'> & { id: bigint }
/** What a plant is made of besides its id. */
export type PlantContent = Omit<Schemas['Plant'], 'id'>
/** A plant to create; a `number` id must be a safe integer (beyond 2^53 a double has already lost digits). */
export type NewPlant = PlantContent & { id: bigint | number }
type ListParameters = NonNullable<operations['listPlants']['parameters']['query']>
/** A query of GET /plants: `filter` as the service documents it, `orderBy` its `order_by`, `count` for `total`. */
export interface ListQuery {
  limit?: number
  tag?: string
  /** In id order: only ids greater than this one. */
  after?: bigint | number
  filter?: string
  /** Words that must start words of the name (case- and accent-insensitive). */
  q?: string
  orderBy?: ListParameters['order_by']
  count?: ListParameters['count']
  /** Outside id order, where the next page starts (as `next` gives it). */
  cursor?: string
}
/**
 * A page, its next page's query, the event log position it reflects (stream from it with `events`) and,
 * with `count`, the number of plants the whole query matches.
 */
export interface Page { plants: Plant[], next?: ListQuery, position?: bigint, total?: number }
/** A webhook subscription, as listed and read (never its secret). */
export type WebhookSubscription = Schemas['WebhookSubscription']
/** The answers to create and rotate: the subscription and its signing secret. */
export type WebhookSubscriptionWithSecret = Schemas['WebhookSubscriptionWithSecret']
/** One event of a subscription; its plant id exact. */
export type WebhookDelivery = Omit<Schemas['WebhookDelivery'], 'plantId'> & { plantId?: bigint }
/** An API token as listed (never the token itself). */
export type Token = Schemas['Token']
/** The answer to create: the token, shown only there. */
export type TokenWithSecret = Schemas['TokenWithSecret']
/** A JSON Merge Patch of a plant: the fields to change; `tag: null` removes the tag. */
export interface PlantPatch { name?: string, tag?: string | null }
/** One operation of `batch`, as the request alone would be. */
export type BatchOperation =
  | { op: 'create', plant: NewPlant }
  | { op: 'replace', id: bigint | number, content: PlantContent, ifMatch?: string }
  | { op: 'patch', id: bigint | number, patch: PlantPatch, ifMatch?: string }
  | { op: 'delete', id: bigint | number, ifMatch?: string }
/** One operation's result: its status, and the plant it answers (none for a delete's 204). */
export interface BatchResult { status: number, plant?: Plant }
/** A write's preconditions: `ifMatch`, only while the plant's ETag is one of these; `ifNoneMatch`, none of them. */
export interface Preconditions { ifMatch?: string, ifNoneMatch?: string }
/** Options of the writes that take an Idempotency-Key: one is generated unless given. */
export interface KeyedOptions extends Preconditions { idempotencyKey?: string }

const preconditionHeaders = ({ ifMatch, ifNoneMatch }: Preconditions): Record<string, string> =>
  ({ ...(ifMatch !== undefined && { 'if-match': ifMatch }), ...(ifNoneMatch !== undefined && { 'if-none-match': ifNoneMatch }) })
export interface DeliveryPage { deliveries: WebhookDelivery[], next?: { limit?: number, after?: string } }

/** Any non-2xx answer: the HTTP status, and the Error body's `error` code and `message`. */
export class PlantStoreError extends Error {
  readonly status: number
  readonly error: Schemas['Error']['error']
  readonly requestId: string | undefined

  constructor (status: number, body: Schemas['Error'], requestId: string | undefined) {
    super(body.message)
    this.name = 'PlantStoreError'
    this.status = status
    this.error = body.error
    this.requestId = requestId
  }
}

/** The service's Error body as a PlantStoreError (any other body as its text, code 0). */
function errorOf (response: Response, text: string): PlantStoreError {
  const parsed = (() => { try { return JSON.parse(text) as Schemas['Error'] } catch { return undefined } })()
  const errorBody = parsed !== undefined && typeof parsed.error === 'number' ? parsed : { error: 0, message: text || response.statusText }
  return new PlantStoreError(response.status, errorBody, response.headers.get('x-request-id') ?? undefined)
}

export interface ClientOptions {
  /** Where the service answers, such as `http://127.0.0.1:8080`. */
  baseUrl: string
  /** A bearer token: `ps_…`, or a JWT when the service accepts them. */
  token: string
  fetch?: typeof globalThis.fetch
  /**
   * How many times `batch`, `patchPlant` and `deletePlant` are sent again, with the same
   * Idempotency-Key, after a network failure, a 503 or a 409 code 3005 (default 3): exactly once, whatever
   * was lost.
   */
  retries?: number
}

/** Whether a keyed write may be sent again: it may not have run (or its answer is kept for the key). */
const retryable = (error: unknown) => !(error instanceof PlantStoreError) || error.status === 503 || (error.status === 409 && error.error === 3005)

/** The wire form of a batch operation, ids written digit for digit. */
function operationJson (operation: BatchOperation): string {
  const ifMatch = 'ifMatch' in operation && operation.ifMatch !== undefined ? `,"ifMatch":${JSON.stringify(operation.ifMatch)}` : ''
  switch (operation.op) {
    case 'create': return `{"method":"POST","path":"/plants","body":${plantBody({ ...operation.plant, id: exactId(operation.plant.id) })}}`
    case 'replace': return `{"method":"PUT","path":"/plants/${exactId(operation.id)}","body":${JSON.stringify({ name: operation.content.name, tag: operation.content.tag })}${ifMatch}}`
    case 'patch': return `{"method":"PATCH","path":"/plants/${exactId(operation.id)}","body":${JSON.stringify(operation.patch)}${ifMatch}}`
    case 'delete': return `{"method":"DELETE","path":"/plants/${exactId(operation.id)}"${ifMatch}}`
  }
}

/** JSON whose integers beyond 2^53 come back as `bigint`, every digit kept. */
function parseExactJson (text: string): unknown {
  return parseLossless(text, null, (literal: string) => {
    const value = Number(literal)
    return Number.isSafeInteger(value) || !/^-?\d+$/.test(literal) ? value : BigInt(literal)
  })
}

/** A plant's create body, its id written digit for digit. */
function plantBody ({ id, name, tag }: { id: bigint, name: string, tag?: string }): string {
  return `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`
}

function exactId (id: bigint | number): bigint {
  if (typeof id === 'bigint') return id
  if (!Number.isSafeInteger(id)) throw new TypeError(`plant id ${id} is not a safe integer: pass it as a bigint`)
  return BigInt(id)
}

function toPlant (value: unknown): Plant {
  const plant = value as { id: number | bigint, name: string, tag?: string }
  return plant.tag === undefined ? { id: BigInt(plant.id), name: plant.name } : { id: BigInt(plant.id), name: plant.name, tag: plant.tag }
}

/** The next page's query, from a `Link: <…>; rel="next"` header. */
function nextQuery (link: string | null): ListQuery | undefined {
  const target = link === null ? undefined : /<([^>]*)>;\s*rel="next"/.exec(link)?.[1]
  if (target === undefined) return undefined
  const params = new URL(target, 'http://next.invalid').searchParams
  const [after, limit, tag, filter, q, orderBy, count, cursor] = ['after', 'limit', 'tag', 'filter', 'q', 'order_by', 'count', 'cursor'].map((name) => params.get(name) ?? null)
  return {
    ...(limit != null && { limit: Number(limit) }),
    ...(tag != null && { tag }),
    ...(after != null && { after: BigInt(after) }),
    ...(filter != null && { filter }),
    ...(q != null && { q }),
    ...(orderBy != null && { orderBy: orderBy as ListQuery['orderBy'] }),
    ...(count != null && { count: count as ListQuery['count'] }),
    ...(cursor != null && { cursor })
  }
}

export function createPlantStoreClient ({ baseUrl, token, fetch = globalThis.fetch, retries = 3 }: ClientOptions) {
  const root = baseUrl.replace(/\/+$/, '')

  async function call (method: string, path: string, body?: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${root}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body })
    })
    const text = await response.text()
    if (!response.ok) throw errorOf(response, text)
    return { response, value: text === '' ? undefined : parseExactJson(text) }
  }

  const plantPath = (id: bigint | number) => `/plants/${exactId(id)}`

  /** A write under one Idempotency-Key, sent again after a failure that may have lost it (with a growing pause). */
  async function keyedCall (method: string, path: string, body: string | undefined, headers: Record<string, string>, options: KeyedOptions) {
    const keyed = { ...headers, 'idempotency-key': options.idempotencyKey ?? globalThis.crypto.randomUUID(), ...preconditionHeaders(options) }
    for (let attempt = 0; ; attempt++) {
      try {
        return await call(method, path, body, keyed)
      } catch (error) {
        if (attempt >= retries || !retryable(error)) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt))
      }
    }
  }

  return {
    /** POST /plants: 200 with the stored plant, also for an identical replay; 409 for other content. */
    async createPlant (plant: NewPlant): Promise<Plant> {
      const { value } = await call('POST', '/plants', plantBody({ ...plant, id: exactId(plant.id) }))
      return toPlant(value)
    },

    /** GET /plants: one page (filtered, ordered and counted as `query` says), and the query of the next page while more remain. */
    async listPlants (query: ListQuery = {}): Promise<Page> {
      const params = new URLSearchParams()
      if (query.limit !== undefined) params.set('limit', String(query.limit))
      if (query.tag !== undefined) params.set('tag', query.tag)
      if (query.after !== undefined) params.set('after', String(exactId(query.after)))
      if (query.filter !== undefined) params.set('filter', query.filter)
      if (query.q !== undefined) params.set('q', query.q)
      if (query.orderBy !== undefined) params.set('order_by', query.orderBy)
      if (query.count !== undefined) params.set('count', query.count)
      if (query.cursor !== undefined) params.set('cursor', query.cursor)
      const { response, value } = await call('GET', `/plants${params.size > 0 ? `?${params}` : ''}`)
      const next = nextQuery(response.headers.get('link'))
      const position = response.headers.get('plantstore-event-position')
      const total = response.headers.get('x-total-count')
      return {
        plants: (value as unknown[]).map(toPlant),
        ...(next !== undefined && { next }),
        ...(position !== null && { position: BigInt(position) }),
        ...(total !== null && { total: Number(total) })
      }
    },

    /** Every plant matching `query`, page after page. */
    plants (query: ListQuery = {}): AsyncGenerator<Plant> {
      return this.allPlants(query)
    },

    /** Every plant matching `query`, page after page (the name `plants` came later). */
    async * allPlants (query: ListQuery = {}): AsyncGenerator<Plant> {
      let page: ListQuery | undefined = query
      while (page !== undefined) {
        const { plants, next }: Page = await this.listPlants(page)
        yield * plants
        page = next
      }
    },

    /** GET /plants/{id}, with the ETag to pass as `ifMatch` to a later replace or delete. */
    async getPlant (id: bigint | number): Promise<{ plant: Plant, etag: string }> {
      const { response, value } = await call('GET', plantPath(id))
      return { plant: toPlant(value), etag: response.headers.get('etag') ?? '' }
    },

    /** PUT /plants/{id}: replaces name and tag; with `ifMatch`, only while the plant is unchanged (else 412). */
    async replacePlant (id: bigint | number, content: PlantContent, options: Preconditions = {}) {
      const { response, value } = await call('PUT', plantPath(id), JSON.stringify({ name: content.name, tag: content.tag }), preconditionHeaders(options))
      return { plant: toPlant(value), etag: response.headers.get('etag') ?? '' }
    },

    /**
     * PATCH /plants/{id} (JSON Merge Patch): changes only the fields given; `tag: null` removes it. With
     * `ifMatch`, only while the plant is unchanged (else 412). Retried under one Idempotency-Key.
     */
    async patchPlant (id: bigint | number, patch: PlantPatch, options: KeyedOptions = {}) {
      const { response, value } = await keyedCall('PATCH', plantPath(id), JSON.stringify(patch), { 'content-type': 'application/merge-patch+json' }, options)
      return { plant: toPlant(value), etag: response.headers.get('etag') ?? '' }
    },

    /** DELETE /plants/{id}; with `ifMatch`, only while the plant is unchanged (else 412). Retried under one Idempotency-Key. */
    async deletePlant (id: bigint | number, options: KeyedOptions = {}): Promise<void> {
      await keyedCall('DELETE', plantPath(id), undefined, {}, options)
    },

    /**
     * POST /batch: 1 to 1,000 operations in order, all or nothing; each one's result in order. When one
     * fails, nothing is written and the PlantStoreError names its place (`operations/3: …`). Retried
     * under one Idempotency-Key.
     */
    async batch (operations: BatchOperation[], options: Pick<KeyedOptions, 'idempotencyKey'> = {}): Promise<BatchResult[]> {
      const { value } = await keyedCall('POST', '/batch', `{"operations":[${operations.map(operationJson).join(',')}]}`, {}, options)
      return (value as { results: Array<{ status: number, body?: unknown }> }).results
        .map(({ status, body }) => body === undefined ? { status } : { status, plant: toPlant(body) })
    },

    /** POST /webhooks (scope webhooks:manage): subscribes a URL; the secret is shown only in this answer. */
    async createWebhook (subscription: Schemas['NewWebhookSubscription']): Promise<WebhookSubscriptionWithSecret> {
      return (await call('POST', '/webhooks', JSON.stringify(subscription))).value as WebhookSubscriptionWithSecret
    },

    /** GET /webhooks: every subscription, oldest first. */
    async listWebhooks (): Promise<WebhookSubscription[]> {
      return (await call('GET', '/webhooks')).value as WebhookSubscription[]
    },

    async getWebhook (id: bigint | number): Promise<WebhookSubscription> {
      return (await call('GET', `/webhooks/${id}`)).value as WebhookSubscription
    },

    /**
     * PATCH /webhooks/{id}: its events (null: the newPlant body), description, throttle or state;
     * `{ state: 'enabled' }` sends what is pending at once.
     */
    async updateWebhook (id: bigint | number, changes: Schemas['WebhookSubscriptionChanges']): Promise<WebhookSubscription> {
      return (await call('PATCH', `/webhooks/${id}`, JSON.stringify(changes))).value as WebhookSubscription
    },

    /** POST /webhooks/{id}/recover: its failed and given-up events since then are sent again; answers how many. */
    async recoverWebhook (id: bigint | number, since: Date | string): Promise<number> {
      const body = { since: typeof since === 'string' ? since : since.toISOString() }
      return ((await call('POST', `/webhooks/${id}/recover`, JSON.stringify(body))).value as Schemas['WebhookRecovered']).recovered
    },

    /** DELETE /webhooks/{id}: its undelivered events are given up. */
    async deleteWebhook (id: bigint | number): Promise<void> {
      await call('DELETE', `/webhooks/${id}`)
    },

    /** POST /webhooks/{id}/rotate-secret: a new secret; for 24 hours deliveries carry both signatures. */
    async rotateWebhookSecret (id: bigint | number): Promise<WebhookSubscriptionWithSecret> {
      return (await call('POST', `/webhooks/${id}/rotate-secret`)).value as WebhookSubscriptionWithSecret
    },

    /** GET /webhooks/{id}/deliveries: the subscription's events, newest first, a page at a time. */
    async listWebhookDeliveries (id: bigint | number, query: { limit?: number, after?: string } = {}): Promise<DeliveryPage> {
      const params = new URLSearchParams()
      if (query.limit !== undefined) params.set('limit', String(query.limit))
      if (query.after !== undefined) params.set('after', query.after)
      const { response, value } = await call('GET', `/webhooks/${id}/deliveries${params.size > 0 ? `?${params}` : ''}`)
      const target = /<([^>]*)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
      const next = target === undefined ? undefined : new URL(target, 'http://next.invalid').searchParams
      const deliveries = (value as Array<Schemas['WebhookDelivery']>).map(({ plantId, ...d }) => ({ ...d, ...(plantId !== undefined && { plantId: BigInt(plantId) }) }))
      return { deliveries, ...(next !== undefined && { next: { limit: Number(next.get('limit')), after: next.get('after') ?? undefined } }) }
    },

    /** POST /webhooks/{id}/deliveries/{eventId}/redeliver: the event is sent again, with its webhook-id. */
    async redeliverWebhookEvent (id: bigint | number, eventId: string): Promise<void> {
      await call('POST', `/webhooks/${id}/deliveries/${encodeURIComponent(eventId)}/redeliver`)
    },

    /**
     * GET /events as an async iterator: every create, replace and delete in commit order, resuming by
     * itself after a dropped connection. List, then follow from the page's `position`, and miss nothing.
     */
    events (options: EventsOptions = {}) {
      return followEvents(
        (headers, query, signal) => fetch(`${root}/events${query}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers }, signal }),
        parseExactJson,
        async (response) => { throw errorOf(response, await response.text()) },
        options)
    },

    /** GET /tokens/current (any valid token): the caller's own name, scopes and expiry. */
    async currentToken (): Promise<Schemas['CurrentToken']> {
      return (await call('GET', '/tokens/current')).value as Schemas['CurrentToken']
    },

    /** GET /tokens (scope tokens:manage), every page: each token's name, scopes, state and dates; never the token. */
    async listTokens (): Promise<Token[]> {
      const tokens: Token[] = []
      for (let path: string | undefined = '/tokens?limit=100'; path !== undefined;) {
        const { response, value } = await call('GET', path)
        tokens.push(...value as Token[])
        path = /<([^>]*)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
      }
      return tokens
    },

    /** POST /tokens: a token with at most the caller's scopes; the answer is the only place it appears. */
    async createToken (token: Schemas['NewToken']): Promise<TokenWithSecret> {
      return (await call('POST', '/tokens', JSON.stringify(token))).value as TokenWithSecret
    },

    /** DELETE /tokens/{id}: refused on every instance within a second. */
    async revokeToken (id: number): Promise<void> {
      await call('DELETE', `/tokens/${id}`)
    },

    /** POST /events/tickets: a ticket for a browser's EventSource (`/events?ticket=…`), valid 10 minutes (`--ticket-lifetime`), never past the token's own expiry. */
    async createEventTicket (): Promise<{ ticket: string, expiresAt: string }> {
      return (await call('POST', '/events/tickets')).value as { ticket: string, expiresAt: string }
    }
  }
}

export type PlantStoreClient = ReturnType<typeof createPlantStoreClient>
