import type { FastifyInstance } from 'fastify'
import { generateTicket, hashToken } from '../auth/tokens.js'
import { operation } from '../contract/document.js'
import { SchemaMismatch, TooManyRequests } from '../contract/errors.js'
import { parseEventTypes, sseReset } from '../contract/events.js'

// A ticket opens streams for this long (an EventSource reconnecting reuses its URL, so its ticket).
const TICKET_LIFETIME_MS = 10 * 60_000
const RETRY_MS = 2000

interface StreamQuery { after?: bigint, types?: string, ticket?: string }

/** Where a stream starts: `Last-Event-ID` wins over `?after=`; neither: undefined (the newest event). */
function resumeFrom (header: string | string[] | undefined, after: bigint | undefined): bigint | undefined {
  if (header === undefined) return after
  if (typeof header !== 'string' || !/^\d{1,19}$/.test(header.trim())) throw new SchemaMismatch('headers/last-event-id must be an event sequence (digits)')
  return BigInt(header.trim())
}

/** GET /events (Server-Sent Events from the event log) and POST /events/tickets (for EventSource). */
export default async function eventRoutes (app: FastifyInstance, { maxStreams, maxStreamsPerToken }: {
  maxStreams: number, maxStreamsPerToken: number
}) {
  const { store } = app

  const streamEvents = operation('streamEvents')
  app.route({
    ...streamEvents,
    config: { ...streamEvents.config, answersWhileDraining: true },
    handler: async (request, reply) => {
      // Closing: a stream that only says when to reconnect (to this address, served by then by another
      // process or this one restarted). Any other status would end a browser's EventSource for good.
      if (app.draining) return reply.header('content-type', 'text/event-stream; charset=utf-8').send(`retry: ${RETRY_MS}\n\n`)
      const principal = request.principal!.key
      const query = request.query as StreamQuery
      const types = query.types === undefined ? undefined : parseEventTypes(query.types)
      if (types === null) throw new SchemaMismatch('querystring/types must name plant.created, plant.updated or plant.deleted')
      const after = resumeFrom(request.headers['last-event-id'], query.after)
      if (app.events.open >= maxStreams) throw new TooManyRequests(5, `this server has ${maxStreams} streams open; retry later`)
      if (app.events.openFor(principal) >= maxStreamsPerToken) throw new TooManyRequests(5, `this token has ${maxStreamsPerToken} streams open already`)

      const { deletedThrough, latest } = await store.events.bounds()
      const stream = app.events.createStream(principal, after ?? latest, types ?? undefined)
      stream.raw(`retry: ${RETRY_MS}\n\n`)
      if (after !== undefined && (after < deletedThrough || after > latest)) {
        // Below what retention deleted (or from another log): some events are gone; the client re-lists.
        stream.raw(sseReset(deletedThrough))
        stream.cursor = after > latest ? latest : deletedThrough
      }
      reply.raw.once('close', () => stream.end())
      app.events.serve(stream, () => {}).catch(() => stream.end())
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
      const ticket = generateTicket()
      const expiresAt = new Date(Date.now() + TICKET_LIFETIME_MS)
      const tokenId = /^token:(\d+)$/.exec(principal.key)?.[1]
      await store.events.addTicket({
        hash: hashToken(ticket),
        tokenId: tokenId === undefined ? null : Number(tokenId),
        principal: principal.key,
        scopes: principal.scopes,
        expiresAt
      })
      return reply.code(201).send({ ticket, expiresAt: expiresAt.toISOString() })
    }
  })
}
