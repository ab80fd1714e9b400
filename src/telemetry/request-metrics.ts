import fp from 'fastify-plugin'
import type { Metrics } from './metrics.js'

/** Request metrics for every request: count and latency by route template and status, and in flight. */
export default fp<{ metrics: Metrics }>(async (app, { metrics }) => {
  // Callback hooks, not async ones: no promise per request for bookkeeping.
  const { counts, requestDuration } = metrics
  app.decorateRequest('countedInFlight', false)
  app.addHook('onRequest', (request, _reply, done) => {
    counts.received++
    request.countedInFlight = true
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (request.countedInFlight) counts.answered++
    requestDuration.series(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode)).observe(reply.elapsedTime / 1000)
    done()
  })
}, { name: 'request-metrics' })
