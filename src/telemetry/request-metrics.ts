import fp from 'fastify-plugin'
import type { Metrics } from './metrics.js'

/** Request metrics for every request: count and latency by route template and status, and in flight. */
export default fp<{ metrics: Metrics }>(async (app, { metrics }) => {
  // Callback hooks, not async ones: no promise per request for bookkeeping.
  const { counts } = metrics
  app.decorateRequest('countedInFlight', false)
  app.addHook('onRequest', (request, _reply, done) => {
    counts.received++
    request.countedInFlight = true
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (request.countedInFlight) counts.answered++
    metrics.answered(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode), reply.elapsedTime / 1000)
    done()
  })
}, { name: 'request-metrics' })
