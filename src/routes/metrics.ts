import fp from 'fastify-plugin'
import type { Config } from '../config/config.js'
import { operation } from '../contract/document.js'
import { InvalidToken, MissingCredentials } from '../contract/errors.js'
import type { Metrics } from '../telemetry/metrics.js'
import type { AuthFailureLimiter } from '../auth/failure-limiter.js'
import { hashToken, readCredentials, sameHash } from '../auth/tokens.js'

/**
 * Request metrics for every request (count and latency by route template and status, in flight), and
 * `GET /metrics` in the Prometheus text format unless turned off; with `--metrics token` it asks for
 * its own bearer token, compared in constant time, and wrong guesses count toward the failed
 * authentication limit like any other.
 */
export default fp<{ metrics: Metrics, settings: Config['metrics'], failures: AuthFailureLimiter }>(async (app, { metrics, settings, failures }) => {
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

  if (settings.mode === 'off') return
  const expected = settings.token === undefined ? undefined : hashToken(settings.token)
  app.route({
    ...operation('getMetrics'),
    handler: async (request, reply) => {
      if (expected !== undefined) {
        const credentials = readCredentials(request.headers.authorization)
        if (credentials.kind !== 'bearer') return failures.fail(request.ip, new MissingCredentials())
        if (!sameHash(hashToken(credentials.token), expected)) return failures.fail(request.ip, new InvalidToken())
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
    }
  })
}, { name: 'metrics', dependencies: ['error-handler'] })
