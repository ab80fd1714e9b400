import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api'
import type { Link, SpanContext } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { requestSpans } from './request-spans.js'
import { setTraceOrigin } from '../lib/trace-context.js'
import type { SpanOptions, Spans } from '../lib/trace-context.js'

// SpanKind's numbers, by the names the layers below use.
const KINDS = { internal: 0, client: 2, producer: 3 } as const
const ERROR = 2
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** A W3C traceparent (version 00) for a span context. */
export const traceparentOf = (span: SpanContext) =>
  `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & TraceFlags.SAMPLED).toString(16)}`

/** The span context a stored traceparent names; undefined for anything else. */
export function spanContextOf (traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent == null ? null : TRACEPARENT.exec(traceparent)
  if (match === null) return undefined
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true }
}

/** Spans for the layers below telemetry (lib/trace-context.ts), on the global tracer. */
function spansOn (tracer: ReturnType<typeof trace.getTracer>): Spans {
  return {
    run (name: string, options: SpanOptions, work) {
      const parent = spanContextOf(options.parent)
      const links: Link[] = []
      for (const link of options.links ?? []) {
        const linked = spanContextOf(link)
        if (linked !== undefined) links.push({ context: linked })
      }
      const within = parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent)
      return tracer.startActiveSpan(name, { kind: KINDS[options.kind], links, attributes: options.attributes }, within, (span) => {
        const handle = {
          traceparent: traceparentOf(span.spanContext()),
          set: (key: string, value: string | number | boolean) => { span.setAttribute(key, value) },
          fail: (message: string) => { span.setStatus({ code: ERROR, message }) }
        }
        let result
        try {
          result = work(handle)
        } catch (error) {
          handle.fail(error instanceof Error ? error.message : String(error))
          span.end()
          throw error
        }
        if (result instanceof Promise) {
          result.then(() => span.end(), (error: unknown) => {
            handle.fail(error instanceof Error ? error.message : String(error))
            span.end()
          })
        } else {
          span.end()
        }
        return result
      })
    }
  }
}

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (service name, exporter and its
 * endpoint, sampler), with the sampler `parentbased_traceidratio` unless one is named. Requests are
 * traced by request-spans.ts (one span each), PostgreSQL queries by the pg instrumentation, store
 * calls by our own spans (metrics.ts's instrumentStore), deliveries and stream fan-out through
 * `spans`. Changes are stored with the traceparent active when the store is called. The webhook
 * dispatcher's thread starts its own (see `module`).
 */
export function startOtel () {
  process.env.OTEL_TRACES_SAMPLER ??= 'parentbased_traceidratio'
  process.env.OTEL_SERVICE_NAME ??= 'plantstore'
  const sdk = new NodeSDK({
    instrumentations: [new PgInstrumentation({ requireParentSpan: true })],
    // Traces only: the service has its own Prometheus metrics, and its logs go to stdout.
    metricReaders: [],
    logRecordProcessors: []
  })
  sdk.start()
  const tracer = trace.getTracer('plantstore')
  setTraceOrigin(() => {
    const span = trace.getSpan(context.active())
    return span === undefined ? undefined : traceparentOf(span.spanContext())
  })
  return {
    plugin: requestSpans(tracer),
    tracer,
    spans: spansOn(tracer),
    module: import.meta.url,
    recording: () => trace.getActiveSpan()?.isRecording() === true,
    shutdown: () => sdk.shutdown()
  }
}
