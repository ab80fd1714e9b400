import type { FastifyInstance, LogLevel } from 'fastify'
import { issueTicket } from '../auth/tickets.js'
import { WindowCounter } from '../lib/window-counter.js'
import { operation } from '../contract/document.js'
import { SchemaMismatch, TooManyRequests } from '../contract/errors.js'
import { parseEventTypes, sseReset } from '../contract/events.js'
import { parsedFilter } from './query-filter.js'

const RETRY_MS = 2000
// Per principal and minute: streams opened (each of its streams three times over), and tickets issued;
// and tickets live (issued within one ticket lifetime). Beyond them, 429: one token cannot spin
// streams or tickets to starve the others.
const OPENS_PER_STREAM_PER_MINUTE = 3
const TICKETS_PER_MINUTE = 30
const LIVE_TICKETS = 100

interface StreamQuery { after?: bigint, types?: string, filter?: string, ticket?: string }

/** Where a stream starts: `Last-Event-ID` wins over `?after=`; neither: undefined (the newest event). */
function resumeFrom (header: string | string[] | undefined, after: bigint | undefined): bigint | undefined {
  if (header === undefined) return after
  if (typeof header !== 'string' || !/^\d{1,19}$/.test(header.trim())) throw new SchemaMismatch('headers/last-event-id must be an event sequence (digits)')
  return BigInt(header.trim())
}

/** GET /events (Server-Sent Events from the event log) and POST /events/tickets (for EventSource). */
export default async function eventRoutes (app: FastifyInstance, { maxStreams, maxStreamsPerToken, ticketLifetimeMs, logLevel }: {
  maxStreams: number, maxStreamsPerToken: number, ticketLifetimeMs: number, logLevel: string
}) {
  const { store } = app
  const opens = new WindowCounter(60_000)
  const opensPerMinute = OPENS_PER_STREAM_PER_MINUTE * maxStreamsPerToken
  const ticketsIssued = new WindowCounter(60_000)
  const ticketsLive = new WindowCounter(ticketLifetimeMs)

  const streamEvents = operation('streamEvents')
  app.route({
    ...streamEvents,
    // A reader leaving is how a stream ends, not news: Fastify's "stream closed prematurely" (info) is
    // kept for debug and trace; a quieter level than the app's is kept as it is.
    logLevel: (['debug', 'trace', 'warn', 'error', 'fatal', 'silent'].includes(logLevel) ? logLevel : 'warn') as LogLevel,
    config: { ...streamEvents.config, answersWhileDraining: true },
    handler: async (request, reply) => {
      // Closing: a stream that only says when to reconnect (to this address, served by then by another
      // process or this one restarted). Any other status would end a browser's EventSource for good.
      if (app.draining) return reply.header('content-type', 'text/event-stream; charset=utf-8').send(`retry: ${RETRY_MS}\n\n`)
      const principal = request.principal!
      const query = request.query as StreamQuery
      const filter = parsedFilter(query.filter)
      const types = query.types === undefined ? undefined : parseEventTypes(query.types, filter !== undefined)
      if (types !== undefined && !(types instanceof Set)) throw new SchemaMismatch(`query/types ${types.refused}`)
      const after = resumeFrom(request.headers['last-event-id'], query.after)
      if (app.events.open >= maxStreams) throw new TooManyRequests(5, `this server has ${maxStreams} streams open; retry later`)
      if (app.events.openFor(principal.key) >= maxStreamsPerToken) throw new TooManyRequests(5, `this token has ${maxStreamsPerToken} streams open already`)
      if (opens.hit(principal.key) > opensPerMinute) {
        throw new TooManyRequests(opens.retryAfterSeconds(principal.key), `this token opened ${opensPerMinute} streams in a minute; retry later`)
      }
      // Counted as open from here, before any wait: the caps above cannot be overrun by requests in between.
      const stream = app.events.createStream(
        { key: principal.key, tokenId: principal.tokenId, expiresAt: principal.expiresAt?.getTime() ?? null }, 0n, types, filter)
      let bounds
      try {
        bounds = await store.events.bounds()
      } catch (error) {
        stream.body.destroy()
        throw error
      }
      const { deletedThrough, latest } = bounds
      stream.cursor = after ?? latest
      stream.raw(`retry: ${RETRY_MS}\n\n`)
      if (after !== undefined && (after < deletedThrough || after > latest)) {
        // Below what retention deleted (or from another log): some events are gone; the client re-lists.
        stream.raw(sseReset(deletedThrough))
        stream.cursor = after > latest ? latest : deletedThrough
      }
      reply.raw.once('close', () => stream.end())
      app.events.serve(stream).catch(() => stream.end())
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        // Proxies must pass each event on as it comes.
        .header('x-accel-buffering', 'no')
        .send(stream.body)
    }
  })

  app.route({
    ...operation('createEventTicket'),
    handler: async (request, reply) => {
      const principal = request.principal!
      if (ticketsIssued.hit(principal.key) > TICKETS_PER_MINUTE) {
        throw new TooManyRequests(ticketsIssued.retryAfterSeconds(principal.key), `this token was issued ${TICKETS_PER_MINUTE} tickets in a minute; retry later`)
      }
      if (ticketsLive.hit(principal.key) > LIVE_TICKETS) {
        throw new TooManyRequests(ticketsLive.retryAfterSeconds(principal.key), `this token holds ${LIVE_TICKETS} live tickets; reuse one`)
      }
      // A ticket never outlives its credential.
      const own = principal.expiresAt?.getTime() ?? Infinity
      const expiresAt = new Date(Math.min(Date.now() + ticketLifetimeMs, own))
      const ticket = issueTicket(await store.events.ticketKey(), principal, expiresAt)
      return reply.code(201).send({ ticket, expiresAt: expiresAt.toISOString() })
    }
  })
}
