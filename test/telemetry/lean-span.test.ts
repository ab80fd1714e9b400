import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTraceState, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import type { SpanContext } from '@opentelemetry/api'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { leanOrigin, spanStarter } from '../../src/telemetry/span-starter.js'
import type { StartSpan } from '../../src/telemetry/span-starter.js'
import { LeanSpan } from '../../src/telemetry/lean-span.js'

const caller: SpanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true, traceState: createTraceState('vendor=1') }
const linked: SpanContext = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }

/** A tracer as the serving thread has it (ParentBased(AlwaysOn)), whose ended spans are kept, and spans started both ways. */
function setUp () {
  const exporter = new InMemorySpanExporter()
  const processor = new SimpleSpanProcessor({ exporter })
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'plantstore' }),
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [processor]
  })
  const tracer = provider.getTracer('plantstore')
  const origin = leanOrigin(tracer, processor)
  assert.ok(origin !== undefined)
  return { exporter, sdk: spanStarter(tracer, undefined), lean: spanStarter(tracer, origin) }
}

/** A request under a caller's trace, with everything the service does to its spans, and a store call under it. */
function traceRequest (start: StartSpan): void {
  const request = start('GET /plants', 1, trace.setSpanContext(ROOT_CONTEXT, caller), undefined, [{ context: linked, attributes: { why: 'event' } }])
  request.setAttributes({ 'http.request.method': 'GET', 'http.response.status_code': 500, tags: ['a', 'b'], ok: false, nothing: undefined })
  request.setAttribute('url.path', '/plants')
  const error = new TypeError('boom')
  error.stack = 'TypeError: boom\n    at here'
  request.recordException(error)
  request.recordException(Object.assign(new Error('reset'), { code: 'ECONNRESET', stack: 'Error: reset' }))
  request.recordException('a string')
  request.recordException({ message: '' })
  request.setStatus({ code: 0 })
  request.setStatus({ code: 2, message: 'boom' })
  const store = start('store plants.list', 2, trace.setSpan(ROOT_CONTEXT, request), { 'db.system.name': 'sqlite' })
  store.setStatus({ code: 1, message: 'kept only for errors' })
  store.setStatus({ code: 2, message: 'too late: OK is final' })
  store.end()
  request.end()
  request.setAttribute('late', true)
}

/** What an exporter reads of a span, with what differs between any two spans (ids, times) left out. */
const read = (span: ReadableSpan) => ({
  name: span.name,
  kind: span.kind,
  traceId: span.spanContext().traceId,
  flags: span.spanContext().traceFlags,
  traceState: span.spanContext().traceState?.serialize(),
  parent: span.parentSpanContext?.traceId,
  status: span.status,
  attributes: span.attributes,
  links: span.links.map((link) => ({ ...link, context: link.context.spanId })),
  events: span.events.map(({ time, ...event }) => event),
  ended: span.ended,
  resource: span.resource.attributes,
  scope: span.instrumentationScope,
  dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]
})

test('a lean span ends into the processor as the SDK span it stands for: the same context, parent, attributes, events, links and status', () => {
  const { exporter, sdk, lean } = setUp()
  traceRequest(sdk)
  const bySdk = exporter.getFinishedSpans()
  exporter.reset()
  const before = Date.now()
  traceRequest(lean)
  const byLean = exporter.getFinishedSpans()
  assert.ok(byLean.every((span) => span instanceof LeanSpan))
  assert.deepEqual(byLean.map(read), bySdk.map(read))
  const store = byLean[0]!
  const request = byLean[1]!
  // The store call hangs under the request; the request under the caller.
  assert.equal(store.parentSpanContext?.spanId, request.spanContext().spanId)
  assert.equal(request.parentSpanContext?.spanId, caller.spanId)
  assert.match(request.spanContext().spanId, /^[0-9a-f]{16}$/)
  const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6
  for (const span of byLean) {
    assert.ok(ms(span.startTime) >= before - 1 && ms(span.startTime) <= ms(span.endTime) && ms(span.endTime) <= Date.now() + 1)
    assert.ok(Math.abs(ms(span.duration) - (ms(span.endTime) - ms(span.startTime))) < 0.01)
    assert.ok(span.endTime[1] < 1e9 && span.duration[1] < 1e9)
  }
})

test('a lean span without a parent starts a sampled trace of its own, with fresh ids', () => {
  const { exporter, lean } = setUp()
  const ids = new Set<string>()
  for (let i = 0; i < 1000; i++) {
    const span = lean('GET /plants/{id}', 1, ROOT_CONTEXT)
    assert.equal(span.isRecording(), true)
    span.end()
    assert.equal(span.isRecording(), false)
    ids.add(span.spanContext().traceId).add(span.spanContext().spanId)
  }
  assert.equal(ids.size, 2000)
  const [first] = exporter.getFinishedSpans()
  assert.match(first!.spanContext().traceId, /^[0-9a-f]{32}$/)
  assert.equal(first!.spanContext().traceFlags, 1)
  assert.equal(first!.parentSpanContext, undefined)
  assert.equal(exporter.getFinishedSpans().length, 1000)
})

test('under a caller that did not sample its trace, the span records nothing and carries that decision on', () => {
  const { exporter, lean } = setUp()
  const span = lean('GET /plants', 1, trace.setSpanContext(ROOT_CONTEXT, { ...caller, traceFlags: 0 }))
  assert.equal(span.isRecording(), false)
  assert.equal(span instanceof LeanSpan, false)
  assert.equal(span.spanContext().traceId, caller.traceId)
  assert.equal(span.spanContext().traceFlags, 0)
  span.end()
  assert.equal(exporter.getFinishedSpans().length, 0)
})
