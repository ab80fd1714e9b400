import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api'
import type { Link, SpanContext, Tracer } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'
import { ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace'
import { requestSpans } from './request-spans.js'
import { setTraceOrigin } from '../lib/trace-context.js'
import type { SpanOptions, Spans } from '../lib/trace-context.js'

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, producer: SpanKind.PRODUCER } as const
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

const messageOf = (error: unknown) => error instanceof Error ? error.message : String(error)

/** Spans for the layers below telemetry (lib/trace-context.ts), on the SDK's tracer: its sampler decides. */
function spansOn (tracer: Tracer): Spans {
  return {
    run (name: string, options: SpanOptions, work) {
      const parent = spanContextOf(options.parent)
      const links: Link[] = []
      for (const link of options.links ?? []) {
        const linked = spanContextOf(link)
        if (linked !== undefined) links.push({ context: linked })
      }
      const within = options.underActive === true
        ? context.active()
        : parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent)
      const span = tracer.startSpan(name, { kind: KINDS[options.kind], attributes: options.attributes, links }, within)
      return context.with(trace.setSpan(within, span), () => {
        const handle = {
          traceparent: traceparentOf(span.spanContext()),
          set: (key: string, value: string | number | boolean) => { span.setAttribute(key, value) },
          fail: (message: string) => { span.setStatus({ code: SpanStatusCode.ERROR, message }) }
        }
        let result
        try {
          result = work(handle)
        } catch (error) {
          handle.fail(messageOf(error))
          span.end()
          throw error
        }
        if (result instanceof Promise) {
          result.then(() => span.end(), (error: unknown) => {
            handle.fail(messageOf(error))
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
 * The ratio OTEL_TRACES_SAMPLER_ARG gives, as the SDK reads it for a ratio sampler: a number from 0 to
 * 1, else 1.
 */
export function samplerRatioOf (arg: string | undefined): number {
  const trimmed = arg?.trim() ?? ''
  // Number('') is 0: an empty argument is no argument.
  const ratio = trimmed === '' ? Number.NaN : Number(trimmed)
  return ratio >= 0 && ratio <= 1 ? ratio : 1
}

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (exporter and its endpoint,
 * batching, sampler, resource), with two defaults of ours where they say nothing: the sampler is
 * `parentbased_traceidratio` and the service is named `plantstore`. Requests are traced by
 * request-spans.ts (one span each), PostgreSQL queries by the pg instrumentation (loaded only for a
 * PostgreSQL store: its hooks cost every request something, even where pg never loads), store calls
 * by timed-store.ts, deliveries and stream fan-out through `spans`. Changes are stored with the
 * traceparent active when the store is called. The webhook dispatcher's thread starts its own (see
 * `module`).
 */
export async function startOtel ({ postgres }: { postgres: boolean }, env: NodeJS.ProcessEnv = process.env) {
  const named = env.OTEL_SERVICE_NAME !== undefined || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '')
  const instrumentations = postgres ? [new (await import('@opentelemetry/instrumentation-pg')).PgInstrumentation({ requireParentSpan: true })] : []
  const sdk = new NodeSDK({
    ...(!named && { serviceName: 'plantstore' }),
    ...(env.OTEL_TRACES_SAMPLER === undefined && {
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatioOf(env.OTEL_TRACES_SAMPLER_ARG)) })
    }),
    instrumentations,
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
    spans: spansOn(tracer),
    module: import.meta.url,
    recording: () => trace.getActiveSpan()?.isRecording() === true,
    shutdown: () => sdk.shutdown()
  }
}
