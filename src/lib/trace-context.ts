// How the layers below telemetry take part in traces without knowing OpenTelemetry: otel.ts installs
// the implementations when traces are on; otherwise these do nothing and load nothing.

export type SpanValue = string | number | boolean

/** A running span: its W3C traceparent (undefined when its trace was not started at all) and what to note on it. */
export interface SpanHandle {
  readonly traceparent: string | undefined
  set (key: string, value: SpanValue): void
  fail (message: string): void
}

export interface SpanOptions {
  kind: 'client' | 'producer' | 'internal'
  /** The traceparent the span continues; none: a trace of its own. */
  parent?: string | null
  /** The span active now is its parent instead (a step of the work in progress). */
  underActive?: boolean
  /** Traceparents of what caused it. */
  links?: Array<string | null>
  attributes?: Record<string, SpanValue>
}

/** Runs work (sync or async) inside a span that ends when the work does. */
export interface Spans {
  run<T> (name: string, options: SpanOptions, work: (span: SpanHandle) => T): T
}

let origin: () => string | undefined = () => undefined

/** The active span's traceparent, stored with the events a change appends; undefined when traces are off. */
export const traceOrigin = (): string | undefined => origin()

export function setTraceOrigin (read: () => string | undefined) {
  origin = read
}
