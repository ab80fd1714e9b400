import fastifyCors from '@fastify/cors'
import fp from 'fastify-plugin'
import type { Config } from '../config/config.js'

// What a browser app may read of an answer, beside the simple headers.
export const EXPOSED_HEADERS = ['ETag', 'Idempotent-Replayed', 'Link', 'Location', 'Plantstore-Event-Position', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id', 'X-Total-Count']

/**
 * CORS, off unless `--cors-origins` names origins (or `*`): every answer to an allowed origin, errors
 * included, carries Access-Control-Allow-Origin, Vary: Origin and the exposed headers; other origins
 * get no CORS headers at all. Preflights are answered by the OPTIONS routes (allowed-methods.ts),
 * which know each path's methods.
 */
export default fp<{ cors: Config['cors'] }>(async (app, { cors }) => {
  if (cors === undefined) return
  await app.register(fastifyCors, {
    origin: cors.origins === '*' ? '*' : [...cors.origins],
    preflight: false
  })
  // @fastify/cors sends its exposed headers to every origin, allowed or not; only an allowed one gets them.
  const exposed = EXPOSED_HEADERS.join(', ')
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.hasHeader('access-control-allow-origin')) reply.header('access-control-expose-headers', exposed)
    done(null, payload)
  })
  if (cors.origins === '*') {
    // A wildcard answer is the same for every origin, but caches should still key on it.
    app.addHook('onRequest', (_request, reply, done) => {
      reply.header('vary', 'Origin')
      done()
    })
  }
}, { name: 'cors', dependencies: ['error-handler'] })
