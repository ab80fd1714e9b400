import type { FastifyInstance } from 'fastify'
import { requireOwnToken } from '../auth/bearer.js'
import type { AuthFailureLimiter } from '../auth/failure-limiter.js'
import { hashToken } from '../store/store.js'
import type { Config } from '../config/config.js'
import { operation } from '../contract/document.js'
import type { Metrics } from '../telemetry/metrics.js'

/**
 * `GET /metrics` in the Prometheus text format unless turned off; with `--metrics token` it asks for
 * its own bearer token.
 */
export default async function metricsRoutes (app: FastifyInstance, { metrics, settings, failures }: {
  metrics: Metrics, settings: Config['metrics'], failures: AuthFailureLimiter
}) {
  if (settings.mode === 'off') return
  app.route({
    ...operation('getMetrics'),
    ...(settings.token !== undefined && { onRequest: requireOwnToken(hashToken(settings.token), failures) }),
    handler: async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })
}
