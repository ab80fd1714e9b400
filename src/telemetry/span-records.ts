import { createTraceState } from '@opentelemetry/api'
import type { Attributes, HrTime, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace'

/** A span context as data: its trace state as its header value. */
interface ContextRecord {
  traceId: string
  spanId: string
  traceFlags: number
  isRemote?: boolean
  traceState?: string
}

/** An ended span as data that can be posted to a thread (a ReadableSpan holds functions and class instances). */
interface SpanRecord {
  name: string
  kind: SpanKind
  context: ContextRecord
  parent?: ContextRecord
  startTime: HrTime
  endTime: HrTime
  duration: HrTime
  status: SpanStatus
  attributes: Attributes
  links: Array<{ context: ContextRecord, attributes?: Attributes, droppedAttributesCount?: number }>
  events: TimedEvent[]
  /** Indexes into the batch's resources and scopes, which its spans share. */
  resource: number
  scope: number
  dropped: { attributes: number, events: number, links: number }
}

/** A batch of ended spans as data; an exporter groups spans by resource and scope. */
export interface SpanBatch {
  spans: SpanRecord[]
  resources: Array<{ attributes: Attributes, schemaUrl?: string }>
  scopes: Array<ReadableSpan['instrumentationScope']>
}

const contextRecord = (context: SpanContext): ContextRecord => ({
  traceId: context.traceId,
  spanId: context.spanId,
  traceFlags: context.traceFlags,
  ...(context.isRemote !== undefined && { isRemote: context.isRemote }),
  ...(context.traceState !== undefined && { traceState: context.traceState.serialize() })
})

const spanContextOf = (record: ContextRecord): SpanContext => ({
  traceId: record.traceId,
  spanId: record.spanId,
  traceFlags: record.traceFlags,
  ...(record.isRemote !== undefined && { isRemote: record.isRemote }),
  ...(record.traceState !== undefined && { traceState: createTraceState(record.traceState) })
})

/** The number `shared` gives `item`, adding it to `list` the first time it is seen. */
function indexOf<T, R> (shared: Map<T, number>, list: R[], item: T, record: (item: T) => R): number {
  let index = shared.get(item)
  if (index === undefined) {
    index = list.push(record(item)) - 1
    shared.set(item, index)
  }
  return index
}

/** Ended spans as data. */
export function toBatch (spans: ReadableSpan[]): SpanBatch {
  const batch: SpanBatch = { spans: [], resources: [], scopes: [] }
  const resources = new Map<ReadableSpan['resource'], number>()
  const scopes = new Map<ReadableSpan['instrumentationScope'], number>()
  for (const span of spans) {
    batch.spans.push({
      name: span.name,
      kind: span.kind,
      context: contextRecord(span.spanContext()),
      ...(span.parentSpanContext !== undefined && { parent: contextRecord(span.parentSpanContext) }),
      startTime: span.startTime,
      endTime: span.endTime,
      duration: span.duration,
      status: span.status,
      attributes: span.attributes,
      links: span.links.map((link) => ({ ...link, context: contextRecord(link.context) })),
      events: span.events,
      resource: indexOf(resources, batch.resources, span.resource, (resource) => ({
        attributes: resource.attributes,
        ...(resource.schemaUrl !== undefined && { schemaUrl: resource.schemaUrl })
      })),
      scope: indexOf(scopes, batch.scopes, span.instrumentationScope, (scope) => scope),
      dropped: { attributes: span.droppedAttributesCount, events: span.droppedEventsCount, links: span.droppedLinksCount }
    })
  }
  return batch
}

/** The spans a batch holds, as an exporter reads them: spans of one resource or scope share one object. */
export function fromBatch (batch: SpanBatch): ReadableSpan[] {
  const resources = batch.resources.map(({ attributes, schemaUrl }) => resourceFromAttributes(attributes, schemaUrl === undefined ? {} : { schemaUrl }))
  return batch.spans.map((record) => {
    const context = spanContextOf(record.context)
    return {
      name: record.name,
      kind: record.kind,
      spanContext: () => context,
      ...(record.parent !== undefined && { parentSpanContext: spanContextOf(record.parent) }),
      startTime: record.startTime,
      endTime: record.endTime,
      duration: record.duration,
      status: record.status,
      attributes: record.attributes,
      links: record.links.map((link) => ({ ...link, context: spanContextOf(link.context) })),
      events: record.events,
      ended: true,
      resource: resources[record.resource]!,
      instrumentationScope: batch.scopes[record.scope]!,
      droppedAttributesCount: record.dropped.attributes,
      droppedEventsCount: record.dropped.events,
      droppedLinksCount: record.dropped.links
    }
  })
}
