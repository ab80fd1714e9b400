import type { FastifyPluginCallback } from 'fastify'
import type { Tracer } from '@opentelemetry/api'
import type { Spans } from '../lib/trace-context.js'

/** What the service uses of OpenTelemetry once started: the request plugin, a tracer, and a flush. */
export interface Tracing {
  plugin: FastifyPluginCallback
  tracer: Tracer
  /** Delivery and fan-out spans, for the layers that know nothing of OpenTelemetry. */
  spans: Spans
  /** The module that starts it (otel.ts), for a thread to start its own. */
  module: string
  /** Whether the span active now records (its trace was sampled): store calls outside one make no span. */
  recording: () => boolean
  shutdown: () => Promise<void>
}

/**
 * Whether the standard OTEL_* settings ask for traces: an OTLP endpoint, or an exporter named. This
 * module imports no OpenTelemetry code (its imports above are types only), so a service that is not
 * asked loads none.
 */
export function tracesRequested (env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER
  if (exporter !== undefined && exporter !== '') return exporter !== 'none'
  return (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '') !== ''
}

/** Loads and starts the OpenTelemetry SDK (otel.ts); call before the store's drivers are loaded, so pg is instrumented. */
export async function startTracing (): Promise<Tracing> {
  return (await import('./otel.js')).startOtel({ sampleAtHead: true })
}

// SpanKind.CLIENT and SpanStatusCode.ERROR, as numbers: this module loads nothing of OpenTelemetry.
const CLIENT = 2
const ERROR = 2

/**
 * Runs a store call inside a span of its own, active while it runs, so the pg instrumentation's query
 * spans nest under it; in a trace that is not sampled (most, at a ratio), the call alone.
 */
export function traced<T> (tracing: Pick<Tracing, 'tracer' | 'recording'>, name: string, system: string, call: () => Promise<T>): Promise<T> {
  if (!tracing.recording()) return call()
  return tracing.tracer.startActiveSpan(name, { kind: CLIENT, attributes: { 'db.system.name': system } }, (span) => {
    const result = call()
    result.then(() => span.end(), (error: unknown) => {
      span.setStatus({ code: ERROR, message: error instanceof Error ? error.message : String(error) })
      span.end()
    })
    return result
  })
}
