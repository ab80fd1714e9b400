import fp from 'fastify-plugin'
import type { Config } from '../config/config.js'
import type { RouteTable } from './route-table.js'

// What a browser may send cross-origin: the credentials and conditional requests the API reads.
const ALLOWED_HEADERS = 'authorization, content-type, if-match, if-none-match, x-request-id'
const PREFLIGHT_MAX_AGE_SECONDS = '600'

/** Fills the route table as routes are declared (register it before any route). */
export const routeTable = fp<{ routes: RouteTable }>(async (app, { routes }) => {
  app.addHook('onRoute', (route) => {
    // OPTIONS routes are this plugin's own (and @fastify/cors's catch-all): they answer for a path, not make one.
    if (route.method !== 'OPTIONS') routes.add(route.method, route.url)
  })
}, { name: 'route-table' })

/**
 * OPTIONS on every known path (register it after every route): 204 with `Allow`, no token needed.
 * With CORS on (plugins/cors.ts has already answered the origin), a preflight from an allowed origin
 * also gets the methods, request headers and cache time it may use. A known path asked with a method
 * it lacks is 405 with `Allow` (see the not-found handler in error-handler.ts).
 */
export const optionsRoutes = fp<{ routes: RouteTable, cors: Config['cors'] }>(async (app, { routes, cors }) => {
  for (const url of routes.templates()) {
    app.route({
      method: 'OPTIONS',
      url,
      handler: async (request, reply) => {
        // The router can match more than the table (an empty :id): what the table does not know is 404.
        const allowed = routes.allowed(request.url.split('?', 1)[0]!)
        if (allowed === undefined) return reply.callNotFound()
        const allow = allowed.join(', ')
        reply.header('allow', allow)
        const preflight = request.headers['access-control-request-method'] !== undefined
        if (cors !== undefined && preflight && reply.hasHeader('access-control-allow-origin')) {
          reply.header('access-control-allow-methods', allow)
          reply.header('access-control-allow-headers', ALLOWED_HEADERS)
          reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
        }
        return reply.code(204).header('content-length', '0').send()
      }
    })
  }
}, { name: 'options-routes' })
