/**
 * How the layers below telemetry take part in traces without knowing OpenTelemetry: telemetry
 * (otel.ts) installs the implementations when traces are on; otherwise these do nothing and load nothing.
 */

/** Attribute values a span keeps. */
export type SpanValue = string | number | boolean

/** A span while it runs: its own context, to carry on as `traceparent`, and what to note on it. */
export interface SpanHandle {
  /** The span's W3C traceparent (sampled or not); undefined when the span's trace was not started at all. */
  readonly traceparent: string | undefined
  set (key: string, value: SpanValue): void
  /** Marks the span failed, with why. */
  fail (message: string): void
}

export interface SpanOptions {
  kind: 'client' | 'producer' | 'internal'
  /** The traceparent the span continues (its parent); none: a trace of its own. */
  parent?: string | null
  /** The span active now is its parent instead (a step of the work in progress). */
  underActive?: boolean
  /** Traceparents the span is linked to (what caused it). */
  links?: Array<string | null>
  attributes?: Record<string, SpanValue>
}

/** Runs work inside a span (sync or async; it ends when the work does). */
export interface Spans {
  run<T> (name: string, options: SpanOptions, work: (span: SpanHandle) => T): T
}

let origin: () => string | undefined = () => undefined

/**
 * The traceparent of the span active now, which the store keeps with the events a change appends, so
 * that their deliveries and fan-out are linked to the request that made them. Undefined when traces are off.
 */
export const traceOrigin = (): string | undefined => origin()

export function setTraceOrigin (read: () => string | undefined) {
  origin = read
}
