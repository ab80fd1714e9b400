import { randomFillSync } from 'node:crypto'
import { isValidSpanId, isValidTraceId, SpanStatusCode, TraceFlags } from '@opentelemetry/api'
import type { Attributes, Exception, HrTime, Link, Span, SpanContext, SpanKind, SpanStatus, TimeInput } from '@opentelemetry/api'
import { hrTime, hrTimeDuration, isAnyValue, isTimeInput, timeInputToHrTime } from '@opentelemetry/core'
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace'

/** Where lean spans go when they end, and what they share with the SDK's own spans. */
export interface LeanOrigin {
  processor: SpanProcessor
  resource: ReadableSpan['resource']
  scope: ReadableSpan['instrumentationScope']
}

// Ids come from a pool of random bytes, refilled a few hundred spans at a time.
const ID_BYTES = 24
const pool = Buffer.alloc(ID_BYTES * 256)
let used = pool.length

/** A new trace id (16 bytes) and span id (8 bytes), in hex; never all zeros, which is invalid. */
function newIds (): [string, string] {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const traceId = pool.toString('hex', used, used + 16)
  const spanId = pool.toString('hex', used + 16, used + ID_BYTES)
  used += ID_BYTES
  return isValidTraceId(traceId) && isValidSpanId(spanId) ? [traceId, spanId] : newIds()
}

// isAnyValue makes a WeakSet per call, for the cycles only objects can have; the values our spans set are strings, numbers and booleans.
const isPrimitive = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'

/**
 * A sampled span of the serving thread, which records what the SDK's span records and ends into the
 * same span processor, without the SDK's per-span work our spans do not need: a sampler call (the
 * decision is made before), span metrics, limits checks on attributes we set ourselves. A request's
 * span and its store call's cost a third less this way, in a loop. span-starter.ts says when spans
 * are lean.
 */
export class LeanSpan implements Span, ReadableSpan {
  name: string
  readonly kind: SpanKind
  readonly parentSpanContext: SpanContext | undefined
  readonly startTime: HrTime
  endTime: HrTime = [0, 0]
  duration: HrTime = [0, 0]
  status: SpanStatus = { code: SpanStatusCode.UNSET }
  readonly attributes: Attributes = {}
  readonly links: Link[] = []
  readonly events: TimedEvent[] = []
  ended = false
  readonly resource: ReadableSpan['resource']
  readonly instrumentationScope: ReadableSpan['instrumentationScope']
  readonly droppedAttributesCount = 0
  readonly droppedEventsCount = 0
  readonly droppedLinksCount = 0
  readonly #context: SpanContext
  readonly #processor: SpanProcessor

  /** A span under `parent` (a sampled span context), or a trace of its own. */
  constructor (origin: LeanOrigin, name: string, kind: SpanKind, parent: SpanContext | undefined, attributes?: Attributes, links: Link[] = []) {
    const [traceId, spanId] = newIds()
    this.#context = parent === undefined
      ? { traceId, spanId, traceFlags: TraceFlags.SAMPLED }
      : { traceId: parent.traceId, spanId, traceFlags: TraceFlags.SAMPLED, ...(parent.traceState !== undefined && { traceState: parent.traceState }) }
    this.parentSpanContext = parent
    this.name = name
    this.kind = kind
    this.resource = origin.resource
    this.instrumentationScope = origin.scope
    this.#processor = origin.processor
    this.startTime = hrTime()
    this.addLinks(links)
    if (attributes !== undefined) this.setAttributes(attributes)
  }

  spanContext (): SpanContext { return this.#context }

  isRecording (): boolean { return !this.ended }

  setAttribute (key: string, value: unknown): this {
    if (!this.ended && key !== '' && value !== undefined && (isPrimitive(value) || isAnyValue(value))) this.attributes[key] = value
    return this
  }

  setAttributes (attributes: Attributes): this {
    for (const key of Object.keys(attributes)) this.setAttribute(key, attributes[key])
    return this
  }

  addEvent (name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this
    const timeGiven = isTimeInput(attributesOrTime)
    const attributes = timeGiven || attributesOrTime === undefined ? {} : attributesOrTime
    const at = timeGiven ? attributesOrTime : time
    this.events.push({ name, attributes, time: at === undefined ? hrTime() : timeInputToHrTime(at), droppedAttributesCount: 0 })
    return this
  }

  addLink (link: Link): this {
    if (!this.ended) this.links.push({ context: link.context, attributes: link.attributes ?? {}, droppedAttributesCount: 0 })
    return this
  }

  addLinks (links: Link[]): this {
    for (const link of links) this.addLink(link)
    return this
  }

  /** As the SDK's span: UNSET changes nothing, OK is final, and only ERROR keeps a message. */
  setStatus (status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this
    this.status = status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code }
    return this
  }

  updateName (name: string): this {
    if (!this.ended) this.name = name
    return this
  }

  /** As the SDK's span records an exception: an `exception` event with its type (its code, else its name), message and stack. */
  recordException (exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {}
    if (typeof exception === 'string') attributes['exception.message'] = exception
    else {
      if (exception.code !== undefined && exception.code !== 0 && exception.code !== '') attributes['exception.type'] = exception.code.toString()
      else if (exception.name !== undefined && exception.name !== '') attributes['exception.type'] = exception.name
      if (exception.message !== undefined && exception.message !== '') attributes['exception.message'] = exception.message
      if (exception.stack !== undefined && exception.stack !== '') attributes['exception.stacktrace'] = exception.stack
    }
    if (attributes['exception.type'] !== undefined || attributes['exception.message'] !== undefined) this.addEvent('exception', attributes, time)
  }

  end (endTime?: TimeInput): void {
    if (this.ended) return
    const end = endTime === undefined ? hrTime() : timeInputToHrTime(endTime)
    const duration = hrTimeDuration(this.startTime, end)
    // An end before the start is the start, as the SDK's span takes it.
    const early = duration[0] < 0
    this.endTime = early ? this.startTime : end
    this.duration = early ? [0, 0] : duration
    this.ended = true
    this.#processor.onEnd(this)
  }
}
