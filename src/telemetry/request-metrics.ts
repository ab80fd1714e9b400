import fp from 'fastify-plugin'
import type { Metrics } from './metrics.js'
import { onHangUp } from '../lib/hang-up.js'

/** Request metrics for every request: count and latency by route template and status, and in flight. */
export default fp<{ metrics: Metrics }>(async (app, { metrics }) => {
  // Callback hooks, not async ones: no promise per request for bookkeeping.
  const { counts } = metrics
  app.decorateRequest('inFlightSince', 0)
  app.addHook('onRequest', (request, reply, done) => {
    counts.received++
    request.inFlightSince = performance.now()
    // A client that hangs up before its answer gets none, so onResponse never runs: counted as 499, as nginx does.
    onHangUp(reply.raw, () => {
      if (request.inFlightSince === 0) return
      counts.answered++
      metrics.answered(request.method, request.routeOptions.url ?? 'unmatched', '499', (performance.now() - request.inFlightSince) / 1000)
      request.inFlightSince = 0
    })
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    if (request.inFlightSince !== 0) counts.answered++
    request.inFlightSince = 0
    metrics.answered(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode), reply.elapsedTime / 1000)
    done()
  })
}, { name: 'request-metrics' })
