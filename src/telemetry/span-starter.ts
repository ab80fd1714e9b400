import type { Attributes, Context, Link, Span, SpanKind, Tracer } from '@opentelemetry/api'

/** Starts a span under the span of `parent` (if any); the caller decides whether to make it active. */
export type StartSpan = (name: string, kind: SpanKind, parent: Context, attributes?: Attributes, links?: Link[]) => Span

/** The SDK's tracer, as a StartSpan: its sampler, processors and exporters decide the rest. */
export function spanStarter (tracer: Tracer): StartSpan {
  return (name, kind, parent, attributes, links) => tracer.startSpan(name, { kind, attributes, links }, parent)
}
