import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api'
import type { Link, SpanContext } from '@opentelemetry/api'
import { NodeSDK } from '@opentelemetry/sdk-node'
import { AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler } from '@opentelemetry/sdk-trace'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { requestSpans } from './request-spans.js'
import { batchOptionsOf, otlpHttpProtocolOf, ThreadSpanExporter } from './span-export-thread.js'
import { spanStarter } from './span-starter.js'
import type { StartSpan } from './span-starter.js'
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

/** What a span not started at all offers. */
const UNTRACED = { traceparent: undefined, set: () => {}, fail: () => {} }

/**
 * Spans for the layers below telemetry (lib/trace-context.ts), on the global tracer; with `headRatio`,
 * a span without a parent starts a trace at that ratio (see startOtel).
 */
function spansOn (start: StartSpan, headRatio: number | undefined): Spans {
  return {
    run (name: string, options: SpanOptions, work) {
      const parent = spanContextOf(options.parent)
      if (!options.underActive && parent === undefined && headRatio !== undefined && Math.random() >= headRatio) return work(UNTRACED)
      const links: Link[] = []
      for (const link of options.links ?? []) {
        const linked = spanContextOf(link)
        if (linked !== undefined) links.push({ context: linked })
      }
      const within = options.underActive === true
        ? context.active()
        : parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent)
      const span = start(name, KINDS[options.kind], within, options.attributes, links)
      return context.with(trace.setSpan(within, span), () => {
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
 * The ratio of the default sampler (parentbased_traceidratio), as the SDK reads OTEL_TRACES_SAMPLER_ARG
 * (a number from 0 to 1, else 1); undefined for any other sampler, which then decides every span.
 */
export function headRatioOf (env: NodeJS.ProcessEnv): number | undefined {
  if (env.OTEL_TRACES_SAMPLER !== 'parentbased_traceidratio') return undefined
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim() ?? ''
  // Number('') is 0: an empty argument is no argument.
  const ratio = arg === '' ? Number.NaN : Number(arg)
  return ratio >= 0 && ratio <= 1 ? ratio : 1
}

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (service name, exporter and its
 * endpoint, sampler), with the sampler `parentbased_traceidratio` unless one is named. Requests are
 * traced by request-spans.ts (one span each), PostgreSQL queries by the pg instrumentation, store
 * calls by our own spans (metrics.ts's instrumentStore), deliveries and stream fan-out through
 * `spans`. Changes are stored with the traceparent active when the store is called. The webhook
 * dispatcher's thread starts its own (see `module`). With `sampleAtHead` (the serving thread), a
 * request or fan-out that starts a trace under the default sampler is sampled before its span is
 * made (the same ratio, by a random draw instead of the trace id), so the many it declines cost
 * nothing; the dispatcher's thread leaves every decision to the SDK. With `exportInThread` (the serving
 * thread), spans sent over OTLP/HTTP are sent from a thread of their own (span-export-thread.ts).
 */
export function startOtel ({ sampleAtHead = false, exportInThread = false }: { sampleAtHead?: boolean, exportInThread?: boolean } = {}) {
  process.env.OTEL_TRACES_SAMPLER ??= 'parentbased_traceidratio'
  process.env.OTEL_SERVICE_NAME ??= 'plantstore'
  const headRatio = sampleAtHead ? headRatioOf(process.env) : undefined
  const protocol = exportInThread ? otlpHttpProtocolOf(process.env) : undefined
  // Spans are batched as OTEL_BSP_* says, whichever the exporter.
  const processor = protocol === undefined ? undefined : new BatchSpanProcessor({ exporter: new ThreadSpanExporter(protocol), ...batchOptionsOf(process.env) })
  const sdk = new NodeSDK({
    // Roots are decided before the span (headRatio); a child follows its parent, as the default does.
    ...(headRatio !== undefined && { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) }),
    ...(processor !== undefined && { spanProcessors: [processor] }),
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
  const start = spanStarter(tracer)
  return {
    plugin: requestSpans(start, headRatio),
    spans: spansOn(start, headRatio),
    module: import.meta.url,
    recording: () => trace.getActiveSpan()?.isRecording() === true,
    shutdown: () => sdk.shutdown()
  }
}
