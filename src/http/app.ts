import Fastify from 'fastify'
import type { FastifyServerOptions } from 'fastify'
import { AccessLog } from '../telemetry/access-log.js'
import { bufferedStdout } from '../telemetry/logging.js'
import type { Config } from '../config/config.js'
import type { Tracing } from '../telemetry/tracing.js'
import auth from '../auth/bearer.js'
import { AuthFailureLimiter } from '../auth/failure-limiter.js'
import { answerClientError, MAX_HEADER_BYTES } from './client-errors.js'
import overload from './overload.js'
import draining from './draining.js'
import allowedHosts from './allowed-hosts.js'
import { limitConnectionsPerAddress } from './connection-limits.js'
import contract from './contract.js'
import cors from './cors.js'
import { optionsRoutes, RouteTable, routeTable } from './allowed-methods.js'
import docs from '../routes/docs.js'
import errorHandler, { sendError } from './error-handler.js'
import requestId, { genReqId } from './request-id.js'
import { Metrics } from '../telemetry/metrics.js'
import requestMetrics from '../telemetry/request-metrics.js'
import metricsRoutes from '../routes/metrics.js'
import store from './store.js'
import webhooks from './webhooks.js'
import events from './events.js'
import eventRoutes from '../routes/events.js'
import operationsRoutes from '../routes/operations.js'
import plantRoutes from '../routes/plants.js'
import webhookRoutes from '../routes/webhooks.js'
import tokenRoutes from '../routes/tokens.js'
import consoleRoutes from '../routes/console.js'

export interface BuildOptions {
  /** A logger destination other than stdout (tests read the log from it). */
  logStream?: NodeJS.WritableStream
  /** OpenTelemetry, when the OTEL_* settings asked for traces (serve starts it before loading this). */
  tracing?: Tracing
  /** Opens the database's connections ahead of the first requests (serve; see openStore's `warm`). */
  warmDatabase?: boolean
}

/** Builds the whole service for a config; never listens (server.ts does). The plugin order is the request order. */
export async function buildApp (config: Config, options: BuildOptions = {}) {
  const destination = options.logStream ?? bufferedStdout()
  const logger: FastifyServerOptions['logger'] = {
    level: config.logLevel,
    // Defence in depth: no line logs headers, but should a request object reach one, its Authorization
    // and Cookie headers are censored.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    stream: destination
  }
  const metrics = new Metrics()
  const app = Fastify({
    logger,
    genReqId,
    bodyLimit: config.bodyLimit,
    // Slow clients cannot hold connections: headers must arrive within headersTimeout, the whole request
    // within requestTimeout; idle keep-alive connections close after keepAliveTimeout.
    http: { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: config.limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    requestTimeout: config.limits.requestTimeoutMs,
    keepAliveTimeout: config.limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: 10_000,
    // draining.ts answers requests that arrive while the server closes.
    return503OnClosing: false,
    // Behind a load balancer: the client's address (for limits and logs) from X-Forwarded-For, but only
    // when the request comes from a proxy the operator trusts.
    // (a hop count is a number, which Fastify takes though its types do not say so)
    trustProxy: (typeof config.trustProxy === 'object' ? [...config.trustProxy] : config.trustProxy) as boolean | string[],
    clientErrorHandler: answerClientError,
    // The document's own formats, for the serialiser's schema merging (allOf): int32 and int64 are
    // checked by our validators, uri by the webhook routes.
    serializerOpts: { ajv: { formats: { int32: true, int64: true, uri: true } } },
    logController: new AccessLog(),
    // Router-level failures (a malformed URL) answer in the contract's shape too.
    frameworkErrors: (error, request, reply) => sendError(error, request, reply)
  })
  // Past this many open connections, node:http closes new ones as they arrive: idle sockets cannot
  // take every file descriptor the process has.
  app.server.maxConnections = config.maxConnections
  limitConnectionsPerAddress(app.server, config.maxConnectionsPerAddress, config.trustProxy)
  const routes = new RouteTable()
  // First, so that every route declared after it is traced.
  if (options.tracing !== undefined) {
    await app.register(options.tracing.plugin)
    app.addHook('onClose', options.tracing.shutdown)
  }
  await app.register(routeTable, { routes })
  await app.register(errorHandler)
  await app.register(draining)
  await app.register(requestId)
  await app.register(allowedHosts, { listenHost: config.host, publicUrl: config.publicUrl })
  await app.register(cors, { cors: config.cors })
  const failures = new AuthFailureLimiter(config.limits.authFailures)
  await app.register(requestMetrics, { metrics })
  await app.register(store, { database: config.database, metrics, tokenCacheBytes: config.caches.tokenBytes, tracing: options.tracing, warm: options.warmDatabase === true })
  await app.register(webhooks, {
    ...config.webhooks,
    database: config.database,
    onAttempt: (outcome, count) => metrics.webhookDeliveries.inc({ outcome }, count),
    onDelivered: (lagSeconds) => metrics.webhookLag.observe(lagSeconds),
    onDisabled: () => metrics.webhooksDisabled.inc(),
    spans: options.tracing?.spans,
    tracing: options.tracing?.module
  })
  await app.register(events, { retentionMs: config.events.retentionMs, tokenRetentionMs: config.events.tokenRetentionMs, bufferBytes: config.events.streamBufferBytes, metrics, spans: options.tracing?.spans })
  metrics.observeWebhooks({ backlog: () => app.store.webhooks.backlog(), concurrency: () => app.webhooks.concurrency() })
  await app.register(overload, { maxEventLoopDelayMs: config.limits.maxEventLoopDelayMs })
  await app.register(auth, { failures, rateLimit: config.limits.perToken, jwt: config.jwt })
  await app.register(contract, { bodyLimit: config.bodyLimit })
  await app.register(docs, { publicUrl: config.publicUrl })
  await app.register(metricsRoutes, { metrics, settings: config.metrics, failures })
  await app.register(operationsRoutes, { publicUrl: config.publicUrl })
  await app.register(plantRoutes, { readCacheBytes: config.caches.readBytes, batchBodyLimit: config.batchBodyLimit, idempotencyRetentionMs: config.idempotencyRetentionMs })
  await app.register(eventRoutes, { maxStreams: config.events.maxStreams, maxStreamsPerToken: config.events.maxStreamsPerToken, ticketLifetimeMs: config.events.ticketLifetimeMs, logLevel: config.logLevel })
  await app.register(webhookRoutes, { allowPrivate: config.webhooks.allowPrivate, maxPerOwner: config.webhooks.maxPerOwner })
  await app.register(tokenRoutes)
  await app.register(consoleRoutes)
  await app.register(optionsRoutes, { routes, cors: config.cors })
  return app
}
