import fp from 'fastify-plugin'

/**
 * Headers suitable for a JSON API: answers that needed a token are never stored by caches, and no
 * answer is content-sniffed. (Fastify sends no x-powered-by to begin with.)
 */
export default fp(async (app) => {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    if (request.routeOptions.config.scope !== undefined) reply.header('cache-control', 'no-store')
  })
}, { name: 'security-headers' })
