import assert from 'node:assert/strict'
import { test } from 'node:test'
import { context, createTraceState, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import type { SpanContext } from '@opentelemetry/api'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import { fromBatch, toBatch } from '../../src/telemetry/span-records.js'
import { batchOptionsOf, otlpHttpProtocolOf, ThreadSpanExporter } from '../../src/telemetry/span-export-thread.js'
import { startReceiver } from '../receiver.js'

/** Ended spans of two scopes, with a remote parent, a trace state, links, events, attributes and an error. */
function endedSpans (): ReadableSpan[] {
  const exporter = new InMemorySpanExporter()
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'plantstore', 'service.instance.id': 'a' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })]
  })
  const caller: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true, traceState: createTraceState('vendor=1,other=two')
  }
  const linked: SpanContext = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }
  const request = provider.getTracer('plantstore').startSpan('POST /plants', { kind: 1, links: [{ context: linked, attributes: { why: 'event' } }] }, trace.setSpanContext(ROOT_CONTEXT, caller))
  request.setAttributes({ 'http.response.status_code': 500, 'url.path': '/plants', tags: ['a', 'b'], ok: false })
  request.addEvent('exception', { 'exception.message': 'boom' })
  request.setStatus({ code: 2, message: 'boom' })
  const store = provider.getTracer('pg', '1.2.3').startSpan('INSERT plants', { kind: 2 }, trace.setSpan(context.active(), request))
  store.end()
  request.end()
  return exporter.getFinishedSpans()
}

/** What an exporter reads of a span, as plain values. */
const read = (span: ReadableSpan) => {
  const plain = (c: SpanContext | undefined) => c === undefined ? undefined : { ...c, traceState: c.traceState?.serialize() }
  return {
    name: span.name,
    kind: span.kind,
    context: plain(span.spanContext()),
    parent: plain(span.parentSpanContext),
    times: [span.startTime, span.endTime, span.duration],
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((link) => ({ ...link, context: plain(link.context) })),
    events: span.events,
    ended: span.ended,
    resource: { attributes: span.resource.attributes, schemaUrl: span.resource.schemaUrl },
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]
  }
}

test('spans posted to a thread as data read there as they were ended, and spans of one resource share it', () => {
  const spans = endedSpans()
  const rebuilt = fromBatch(structuredClone(toBatch(spans)))
  assert.equal(rebuilt.length, 2)
  assert.deepEqual(rebuilt.map(read), spans.map(read))
  assert.equal(rebuilt[0]!.spanContext().traceState?.get('other'), 'two')
  // An exporter groups a batch's spans by resource object.
  assert.equal(rebuilt[0]!.resource, rebuilt[1]!.resource)
  assert.notEqual(rebuilt[0]!.instrumentationScope, rebuilt[1]!.instrumentationScope)
})

test('the thread is used for the one exporter the variables choose when it is OTLP over HTTP, as the SDK reads them', () => {
  assert.equal(otlpHttpProtocolOf({}), 'http/protobuf')
  assert.equal(otlpHttpProtocolOf({ OTEL_TRACES_EXPORTER: ' otlp ' }), 'http/protobuf')
  assert.equal(otlpHttpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), 'http/json')
  assert.equal(otlpHttpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }), 'http/protobuf')
  assert.equal(otlpHttpProtocolOf({ OTEL_TRACES_EXPORTER: 'otlp,none' }), 'http/protobuf')
  assert.equal(otlpHttpProtocolOf({ OTEL_TRACES_EXPORTER: 'none,otlp' }), undefined)
  assert.equal(otlpHttpProtocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), undefined)
  assert.equal(otlpHttpProtocolOf({ OTEL_TRACES_EXPORTER: 'console' }), undefined)
  assert.equal(otlpHttpProtocolOf({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' }), undefined)
})

test('the serving thread batches its spans as OTEL_BSP_* say, read as the SDK reads them: a positive number, else the default', () => {
  assert.deepEqual(batchOptionsOf({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_SCHEDULE_DELAY: '0', OTEL_BSP_EXPORT_TIMEOUT: 'soon', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: ' 64 ' }),
    { maxQueueSize: 100, scheduledDelayMillis: undefined, exportTimeoutMillis: undefined, maxExportBatchSize: 64 })
  assert.deepEqual(batchOptionsOf({ OTEL_BSP_SCHEDULE_DELAY: '-5', OTEL_BSP_MAX_QUEUE_SIZE: '' }),
    { maxQueueSize: undefined, scheduledDelayMillis: undefined, exportTimeoutMillis: undefined, maxExportBatchSize: undefined })
})

/** A ThreadSpanExporter whose thread reads OTEL_* as they are while it starts. */
function exporterWith (env: Record<string, string>, protocol: 'http/protobuf' | 'http/json') {
  const saved = { ...process.env }
  Object.assign(process.env, env)
  try {
    return new ThreadSpanExporter(protocol)
  } finally {
    for (const key of Object.keys(env)) if (saved[key] === undefined) Reflect.deleteProperty(process.env, key); else process.env[key] = saved[key]
  }
}

const exported = (exporter: ThreadSpanExporter, spans: ReadableSpan[]) =>
  new Promise<{ code: number, error?: Error }>((resolve) => { exporter.export(spans, resolve) })

for (const [protocol, type] of [['http/protobuf', 'application/x-protobuf'], ['http/json', 'application/json']] as const) {
  test(`the thread sends a batch over OTLP/HTTP (${protocol}) and answers its callback; a refusal fails it; after shutdown an export fails`, async (t) => {
    let status = 200
    const receiver = await startReceiver(() => status)
    t.after(() => receiver.close())
    const exporter = exporterWith({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}` }, protocol)
    assert.deepEqual(await exported(exporter, endedSpans()), { code: 0 })
    assert.equal(receiver.received.length, 1)
    assert.equal(receiver.received[0]!.headers['content-type'], type)
    for (const name of ['POST /plants', 'INSERT plants', 'plantstore', '4bf92f3577b34da6a3ce929d0e0e4736'.slice(0, protocol === 'http/json' ? 32 : 0)]) {
      assert.ok(receiver.received[0]!.body.includes(name), name)
    }
    status = 400
    const refused = await exported(exporter, endedSpans())
    assert.equal(refused.code, 1)
    assert.ok(refused.error instanceof Error)
    await exporter.forceFlush()
    await Promise.all([exporter.shutdown(), exporter.shutdown()])
    await exporter.shutdown()
    const after = await exported(exporter, endedSpans())
    assert.equal(after.code, 1)
    assert.equal(receiver.received.length, 2)
  })
}
