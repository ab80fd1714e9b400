import { trace } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { FastifyOtelInstrumentation } from '@fastify/otel'

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (service name, exporter and its
 * endpoint, sampler), with the sampler `parentbased_traceidratio` unless one is named. Requests are
 * traced by @fastify/otel (route hooks are not: one span per request and its handler), PostgreSQL
 * queries by the pg instrumentation, store calls by our own spans (metrics.ts's instrumentStore).
 */
export function startOtel () {
  process.env.OTEL_TRACES_SAMPLER ??= 'parentbased_traceidratio'
  process.env.OTEL_SERVICE_NAME ??= 'plantstore'
  const fastify = new FastifyOtelInstrumentation({ instrumentHooks: false })
  const sdk = new NodeSDK({
    instrumentations: [fastify, new PgInstrumentation({ requireParentSpan: true })],
    // Traces only: the service has its own Prometheus metrics, and its logs go to stdout.
    metricReaders: [],
    logRecordProcessors: []
  })
  sdk.start()
  return {
    plugin: fastify.plugin(),
    tracer: trace.getTracer('plantstore'),
    recording: () => trace.getActiveSpan()?.isRecording() === true,
    shutdown: () => sdk.shutdown()
  }
}
