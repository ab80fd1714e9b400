import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import fp from 'fastify-plugin'

// A caller's own id is kept when it is short and plain, so that it cannot forge log lines.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** Fastify's genReqId: the caller's x-request-id when it is safe, a new UUID otherwise. */
export function genReqId (req: IncomingMessage): string {
  const given = req.headers['x-request-id']
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID()
}

/**
 * Headers every answer carries, errors included (error-handler.ts sets them too, for the
 * router's own failures): its request id, so a caller can quote it to find the log line, and
 * `nosniff`, as suits a JSON API. (Fastify sends no x-powered-by to begin with.) Authenticated
 * answers also get `Cache-Control: no-store` (auth/bearer.ts).
 */
export default fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.header('x-content-type-options', 'nosniff')
    done()
  })
}, { name: 'request-id' })
