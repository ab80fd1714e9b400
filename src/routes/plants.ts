import type { FastifyInstance, FastifyReply } from 'fastify'
import { operation } from '../contract/document.js'
import { plantJson, plantOfBody, plantsJson } from '../contract/plant.js'
import { etagOf, noneMatch, preconditionOf } from '../contract/etag.js'
import { NotFound, PlantConflict, PreconditionFailed, SchemaMismatch } from '../contract/errors.js'
import { isPlainList } from '../store/store.js'
import type { PlantOrder, WriteOutcome } from '../store/store.js'
import { FairQueue } from '../lib/fair-queue.js'
import { hangUpSignal } from '../lib/hang-up.js'
import { SearchError, searchWords } from '../contract/search.js'
import { cursorAfter, readCursor } from './plant-cursor.js'
import { parsedFilter } from './query-filter.js'
import type { CursorQuery } from './plant-cursor.js'
import { ReadCache } from './read-cache.js'
import { idempotencyKey, KeyedWrites } from './idempotency.js'
import plantWriteRoutes from './plant-writes.js'

// Shapes as validated against the document: ids are exact bigints (see contract/validators.ts).
interface PlantBody { id?: bigint, name: string, tag?: string }
interface IdParams { id: bigint }
interface ListQuery {
  limit: number
  tag?: string
  after?: bigint
  filter?: string
  q?: string
  order_by?: PlantOrder
  count?: 'exact' | 'estimated'
  cursor?: string
}

/** The words of the q parameter; 400 (code 1001) when there are none, or too many. */
function parsedSearch (q: string): string[] {
  try {
    return searchWords(q)
  } catch (error) {
    if (error instanceof SearchError) throw new SchemaMismatch(`query/q ${error.message}`)
    throw error
  }
}

const notFound = (id: bigint) => new NotFound(`plant ${id} not found`)
const JSON_TYPE = 'application/json; charset=utf-8'
/** The event log position a read reflects: stream from it (GET /events?after=) and miss nothing. */
const POSITION_HEADER = 'plantstore-event-position'

/** A replace or delete that did not happen, as its error; the plant when it did. */
function written (outcome: WriteOutcome, id: bigint): Extract<WriteOutcome, { kind: 'done' }> {
  if (outcome.kind === 'missing') throw notFound(id)
  if (outcome.kind === 'precondition-failed') throw new PreconditionFailed(outcome.refusal, etagOf(outcome.plant))
  return outcome
}

export interface PlantRouteSettings { readCacheBytes: number, batchBodyLimit: number, idempotencyRetentionMs: number }

export default async function plantRoutes (app: FastifyInstance, { readCacheBytes, batchBodyLimit, idempotencyRetentionMs }: PlantRouteSettings) {
  const { store } = app
  const writes = new KeyedWrites(store.plants)
  await app.register(plantWriteRoutes, { batchBodyLimit, idempotencyRetentionMs, writes })
  // Pages and single plants, each under a key of its own kind: a page's is a JSON array, a plant's `plant <id>`.
  const answers = new ReadCache(readCacheBytes)
  // Pages beyond the plain list take turns by token: one token's pile of costly queries
  // never makes everyone else's wait behind it.
  const costlyPages = new FairQueue(store.dialect.pageReaders)

  app.route({
    ...operation('listPlants'),
    handler: async (request, reply) => {
      const query = request.query as ListQuery
      const version = store.dialect.readVersion()
      // The parsed query, each part told apart: no tag is not the empty tag.
      const key = JSON.stringify([query.limit, query.after?.toString() ?? null, query.tag ?? null, query.filter ?? null,
        query.q ?? null, query.order_by ?? null, query.count ?? null, query.cursor ?? null])
      const page = await answers.through(key, version, () => readPage(query, request.principal!.key, reply))
      if (page.link !== undefined) reply.header('link', page.link)
      if (page.total !== undefined) reply.header('x-total-count', page.total)
      reply.header(POSITION_HEADER, page.position)
      return reply.type(JSON_TYPE).send(page.body)
    }
  })

  async function readPage (query: ListQuery, caller: string, reply: FastifyReply): Promise<{ body: string, position: string, total?: string, link?: string }> {
    const { limit, tag, after, count } = query
    const order = query.order_by ?? 'id'
    const filter = parsedFilter(query.filter)
    const search = query.q === undefined ? undefined : parsedSearch(query.q)
    if (after !== undefined && order !== 'id') throw new SchemaMismatch('query/after pages in id order only; other orders page with cursor (the Link header fills it in)')
    const bound: CursorQuery = { filter: query.filter, q: query.q, tag, order }
    if (query.cursor !== undefined && order === 'id') throw new SchemaMismatch('query/cursor pages in the other orders; id order pages with after')
    const from = query.cursor === undefined ? undefined : readCursor(query.cursor, bound)
    // One row more than asked tells whether a next page exists without a second query.
    const listQuery = { limit: limit + 1, tag, after, filter, search, order, from, count }
    const { plants: rows, position, total } = await (isPlainList(listQuery)
      ? store.plants.list(listQuery)
      : costlyPages.run(caller, () => store.plants.list(listQuery), hangUpSignal(reply.raw)))
    const answer = { position: String(position), ...(total !== undefined && { total: String(total) }) }
    if (rows.length <= limit) return { body: plantsJson(rows), ...answer }
    const page = rows.slice(0, limit)
    const last = page.at(-1)!
    const next = new URLSearchParams({ limit: String(limit) })
    if (tag !== undefined) next.set('tag', tag)
    if (query.filter !== undefined) next.set('filter', query.filter)
    if (query.q !== undefined) next.set('q', query.q)
    if (order !== 'id') next.set('order_by', order)
    if (count !== undefined) next.set('count', count)
    next.set(order === 'id' ? 'after' : 'cursor', order === 'id' ? String(last.id) : cursorAfter(last, bound))
    return { body: plantsJson(page), link: `</plants?${next}>; rel="next"`, ...answer }
  }

  app.route({
    ...operation('createPlant'),
    handler: async (request, reply) => {
      const body = request.body as PlantBody & { id: bigint }
      const outcome = await store.plants.create(plantOfBody(body.id, body))
      if (outcome.kind === 'conflict') throw new PlantConflict(String(body.id))
      reply.header('etag', etagOf(outcome.plant))
      reply.header('location', `/plants/${outcome.plant.id}`)
      return reply.type(JSON_TYPE).send(plantJson(outcome.plant))
    }
  })

  app.route({
    ...operation('getPlant'),
    handler: async (request, reply) => {
      const { id } = request.params as IdParams
      const version = store.dialect.readVersion()
      const answer = await answers.through(`plant ${id}`, version, () => readPlant(id, reply))
      reply.header(POSITION_HEADER, answer.position)
      reply.header('etag', answer.etag)
      if (noneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send()
      return reply.type(JSON_TYPE).send(answer.body)
    }
  })

  /** A plant's answer, or its 404 (which still says the position it reflects). */
  async function readPlant (id: bigint, reply: FastifyReply) {
    const { plant, position } = await store.plants.get(id)
    if (plant === undefined) {
      reply.header(POSITION_HEADER, String(position))
      throw notFound(id)
    }
    return { body: plantJson(plant), etag: etagOf(plant), position: String(position) }
  }

  app.route({
    ...operation('replacePlant'),
    handler: async (request, reply) => {
      const { id } = request.params as IdParams
      const body = request.body as PlantBody
      if (body.id !== undefined && body.id !== id) throw new SchemaMismatch(`body/id ${body.id} must equal the id in the path, ${id}`)
      const { plant } = written(await store.plants.replace(plantOfBody(id, body), preconditionOf(request.headers)), id)
      reply.header('etag', etagOf(plant))
      return reply.type(JSON_TYPE).send(plantJson(plant))
    }
  })

  app.route({
    ...operation('deletePlant'),
    handler: async (request, reply) => {
      const { id } = request.params as IdParams
      const precondition = preconditionOf(request.headers)
      const key = idempotencyKey(request, idempotencyRetentionMs)
      if (key !== undefined) {
        const remove = { op: 'delete' as const, id, ...(precondition !== undefined && { precondition }) }
        return writes.send({ operations: [remove], answer: 'single', key }, reply)
      }
      written(await store.plants.delete(id, precondition), id)
      return reply.code(204).send()
    }
  })
}
