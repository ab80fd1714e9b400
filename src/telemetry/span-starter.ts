import { isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api'
import type { Attributes, Context, Link, Span, SpanKind, Tracer } from '@opentelemetry/api'
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace'
import { LeanSpan } from './lean-span.js'
import type { LeanOrigin } from './lean-span.js'

/** Starts a span under the span of `parent` (if any); the caller decides whether to make it active. */
export type StartSpan = (name: string, kind: SpanKind, parent: Context, attributes?: Attributes, links?: Link[]) => Span

/**
 * What lean spans share with the SDK's: the resource the SDK detected at start, which it hands out only
 * on its spans, read from one it starts here and never ends (so never exports), and its scope.
 */
export function leanOrigin (tracer: Tracer, processor: SpanProcessor): LeanOrigin | undefined {
  const probe = tracer.startSpan('plantstore', { root: true }) as unknown as Partial<ReadableSpan>
  if (probe.resource === undefined || probe.instrumentationScope === undefined) return undefined
  return { processor, resource: probe.resource, scope: probe.instrumentationScope }
}

/**
 * The SDK's tracer, or with `lean`, lean spans (lean-span.ts) wherever the SDK's sampler would record:
 * this is only for the sampler ParentBased(AlwaysOn), which records under a sampled parent or none
 * (the serving thread decides roots before it starts a span). Under a parent not sampled, the SDK
 * starts the span that carries that decision on.
 */
export function spanStarter (tracer: Tracer, lean: LeanOrigin | undefined): StartSpan {
  const sdkSpan: StartSpan = (name, kind, parent, attributes, links) => tracer.startSpan(name, { kind, attributes, links }, parent)
  if (lean === undefined) return sdkSpan
  return (name, kind, parent, attributes, links) => {
    const parentSpan = trace.getSpanContext(parent)
    const valid = parentSpan !== undefined && isSpanContextValid(parentSpan)
    if (valid && (parentSpan.traceFlags & TraceFlags.SAMPLED) === 0) return sdkSpan(name, kind, parent, attributes, links)
    return new LeanSpan(lean, name, kind, valid ? parentSpan : undefined, attributes, links)
  }
}
