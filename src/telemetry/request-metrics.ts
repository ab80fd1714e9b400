import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import type { Metrics } from './metrics.js'
import { onHangUp } from '../lib/hang-up.js'
import { logHangUp } from './access-log.js'

/** Request metrics for every request: count and latency by route template and status, and in flight; and the access log's line for a client that hangs up. */
export default fp<{ metrics: Metrics }>(async (app, { metrics }) => {
  // Callback hooks, not async ones: no promise per request for bookkeeping.
  const { counts } = metrics
  const answered = (request: FastifyRequest, status: number, seconds: number) => {
    if (request.countedInFlight) counts.answered++
    request.countedInFlight = false
    metrics.answered(request.method, request.routeOptions.url ?? 'unmatched', status, seconds)
  }
  app.decorateRequest('countedInFlight', false)
  app.addHook('onRequest', (request, reply, done) => {
    counts.received++
    request.countedInFlight = true
    // A client that hangs up before its answer gets none, so neither onResponse nor the access log
    // runs: counted and logged here as 499, as nginx does (one listener for both).
    onHangUp(reply.raw, () => {
      if (!request.countedInFlight) return
      answered(request, 499, reply.elapsedTime / 1000)
      logHangUp(request, reply)
    })
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    answered(request, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}, { name: 'request-metrics' })
