import type { FastifyPluginCallback } from 'fastify'
import type { Spans } from '../lib/trace-context.js'

/** What the service uses of OpenTelemetry once started: the request plugin, spans, and a flush. */
export interface Tracing {
  plugin: FastifyPluginCallback
  /** Store, delivery and fan-out spans, for the code that knows nothing of OpenTelemetry. */
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
export async function startTracing (store: { postgres: boolean }): Promise<Tracing> {
  return (await import('./otel.js')).startOtel(store)
}

/**
 * Runs a store call inside a span of its own, active while it runs, so the pg instrumentation's query
 * spans nest under it; in a trace that is not sampled (most, at a ratio), the call alone.
 */
export function traced<T> (tracing: Pick<Tracing, 'spans' | 'recording'>, name: string, system: string, call: () => Promise<T>): Promise<T> {
  if (!tracing.recording()) return call()
  return tracing.spans.run(name, { kind: 'client', underActive: true, attributes: { 'db.system.name': system } }, call)
}
