import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createPlant, newDatabase, run, serve, stop, workdir } from '../executable.js'
import { freshDatabase } from '../databases.js'
import { startReceiver, waitFor } from '../receiver.js'
import { parsePrometheus } from '../prometheus.js'

const recorder = fileURLToPath(new URL('../fixtures/record-modules.mjs', import.meta.url))
let records = 0

interface Span {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes: Array<{ key: string, value: Record<string, unknown> }>
  links?: Array<{ traceId: string, spanId: string }>
}

const attribute = (span: Pick<Span, 'attributes'>, key: string) => span.attributes.find((a) => a.key === key)?.value

/** An OTLP/HTTP receiver (JSON) on loopback: every span it is sent. */
async function startCollector () {
  const spans: Span[] = []
  const services = new Set<unknown>()
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => { body += chunk })
    req.on('end', () => {
      const sent = JSON.parse(body) as { resourceSpans: Array<{ resource: Pick<Span, 'attributes'>, scopeSpans: Array<{ spans: Span[] }> }> }
      for (const resource of sent.resourceSpans) {
        services.add(attribute(resource.resource, 'service.name')?.stringValue)
        for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { spans, services, url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** Serves with OpenTelemetry modules recorded; creates and reads a plant; answers what was loaded. */
async function exercise (database: string, env: Record<string, string>) {
  const file = join(workdir, `modules-${++records}.txt`)
  const token = (await run(['tokens', 'create', '--name', 'traced', '--database', database])).stdout.trim()
  const server = await serve(database, [], { NODE_OPTIONS: `--import ${recorder}`, RECORD_MODULES: file, ...env })
  try {
    assert.equal((await createPlant(server.url, token, { id: 1, name: 'Fern' })).status, 200)
    assert.equal((await fetch(`${server.url}/plants/1`, { headers: { authorization: `Bearer ${token}`, traceparent: CALLER } })).status, 200)
  } finally {
    await stop(server)
  }
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
}

/** A caller's sampled trace context, which the GET continues. */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'
const CALLER = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`

const tracesTo = (url: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' })

test('with no OTEL_* endpoint or exporter, the process loads none of OpenTelemetry: no SDK, exporter or instrumentation', async () => {
  const loaded = await exercise(newDatabase(), {})
  // Only the API's no-op facade, which prom-client's process_cpu_seconds_total requires for its
  // exemplars whatever we do; nothing of ours, and nothing else, asks for any of it.
  const outside = loaded.filter((line) => {
    const [parent, url] = line.split(' ')
    return !url!.includes('/@opentelemetry/api/') || !(parent!.includes('/prom-client/') || parent!.includes('/@opentelemetry/api/'))
  })
  assert.deepEqual(outside, [])
})

const databases: Record<string, () => Promise<string>> = {
  sqlite: async () => newDatabase(),
  ...(process.env.PLANTSTORE_TEST_POSTGRES_URL !== undefined && {
    postgres: async () => {
      const url = await freshDatabase('postgres:fresh')
      await run(['migrate', '--database', url])
      return url
    }
  })
}

for (const [name, database] of Object.entries(databases)) {
  describe(`traces on ${name}`, () => {
    test('each request is a trace: its span, and the store calls as its children, sent over OTLP/HTTP', async (t) => {
      const collector = await startCollector()
      t.after(() => collector.close())
      const loaded = await exercise(await database(), tracesTo(collector.url))
      assert.ok(loaded.some((line) => line.includes('@opentelemetry/sdk-node')), 'the SDK is loaded when asked for')
      assert.equal(loaded.some((line) => line.includes('@opentelemetry/instrumentation-pg')), name === 'postgres', 'pg\'s instrumentation only where pg is')
      assert.deepEqual([...collector.services], ['plantstore'], 'the service is named plantstore unless OTEL_SERVICE_NAME says otherwise')
      const byId = new Map(collector.spans.map((span) => [span.spanId, span]))
      const get = collector.spans.find((span) => span.name === 'store plants.get')
      assert.ok(get !== undefined, `a store span: ${collector.spans.map((s) => s.name).join(', ')}`)
      const ancestors: string[] = []
      for (let span: Span | undefined = get; span?.parentSpanId !== undefined && span.parentSpanId !== ''; span = byId.get(span.parentSpanId)) {
        ancestors.push(byId.get(span.parentSpanId)?.name ?? '?')
      }
      assert.equal(ancestors[0], 'GET /plants/:id', 'the store span sits under the request')
      const request = byId.get(get.parentSpanId!)!
      assert.deepEqual([request.traceId, request.parentSpanId], [CALLER_TRACE, CALLER_SPAN], 'the request continues its caller\'s traceparent')
      assert.deepEqual(attribute(request, 'http.response.status_code'), { intValue: 200 })
      assert.deepEqual(attribute(request, 'http.route'), { stringValue: '/plants/:id' })
      assert.ok(collector.spans.some((span) => span.name === 'store plants.create'))
      const system = get.attributes.find((a) => a.key === 'db.system.name')?.value
      assert.deepEqual(system, { stringValue: name === 'postgres' ? 'postgresql' : 'sqlite' })
      if (name === 'postgres') assert.ok(collector.spans.some((span) => span.parentSpanId === get.spanId), 'pg\'s query spans under the store call')
    })

    test('a create delivered to a webhook and streamed: request → store → delivery, linked through the event; the delivery carries traceparent', async (t) => {
      const collector = await startCollector()
      t.after(() => collector.close())
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const url = await database()
      const token = (await run(['tokens', 'create', '--name', 'traced', '--database', url])).stdout.trim()
      assert.equal((await run(['webhooks', 'add', receiver.url, '--database', url])).code, 0)
      const server = await serve(url, [], tracesTo(collector.url))
      const reading = new AbortController()
      let reader = Promise.resolve()
      try {
        const headers = { authorization: `Bearer ${token}` }
        const stream = await fetch(`${server.url}/events`, { headers, signal: reading.signal })
        assert.equal(stream.status, 200)
        // Read on until the end, so that the stream stays open for the creates below.
        let text = ''
        reader = (async () => {
          for await (const chunk of stream.body!) text += Buffer.from(chunk).toString()
        })().catch(() => {})
        const streamed = waitFor(() => text.includes('event: plant.created'), 10_000, 'the streamed event').then(() => text)
        assert.equal((await createPlant(server.url, token, { id: 1, name: 'Fern' })).status, 200)
        assert.match(await streamed, /event: plant.created/)
        await waitFor(() => receiver.received.length === 1, 10_000, 'the delivery')
        await waitFor(() => collector.spans.some((span) => span.name === 'webhook deliver'), 10_000, 'the delivery span')
        // A stream still catching up reads the log itself; once live, a create is fanned out to it.
        const fannedOut = () => collector.spans.some((span) => span.name === 'events fan-out')
        for (let id = 2; id <= 10 && !fannedOut(); id++) {
          await createPlant(server.url, token, { id, name: 'Ivy' })
          await waitFor(fannedOut, 2000, 'a fan-out span').catch(() => {})
        }
      } finally {
        reading.abort()
        await reader
        await stop(server)
      }
      const sent = receiver.received[0]!.headers
      const delivery = collector.spans.find((span) => span.name === 'webhook deliver' && attribute(span, 'plantstore.webhook.id')?.stringValue === sent['webhook-id'])!
      assert.ok(delivery !== undefined, 'the delivery received has its span')
      const create = collector.spans.find((span) => span.spanId === delivery.parentSpanId)!
      assert.equal(create?.name, 'store plants.create', 'the delivery sits under the store call that appended its event')
      const request = collector.spans.find((span) => span.spanId === create.parentSpanId)
      assert.equal(request?.name, 'POST /plants', 'the store span has its request as parent')
      assert.equal(delivery.traceId, create.traceId, 'the delivery continues the request\'s trace')
      assert.deepEqual(delivery.links?.map((link) => link.spanId), [create.spanId], 'and links to the store call')
      assert.equal(sent.traceparent, `00-${delivery.traceId}-${delivery.spanId}-01`)
      assert.deepEqual(attribute(delivery, 'http.response.status_code'), { intValue: 200 })
      const creates = new Set(collector.spans.filter((span) => span.name === 'store plants.create').map((span) => span.spanId))
      const fanOut = collector.spans.find((span) => span.name === 'events fan-out')
      assert.ok(fanOut?.links?.some((link) => creates.has(link.spanId)), 'a fan-out links to the store call of a create it carried')
    })
  })
}

test('a request whose client hangs up before its answer still ends its span, marked client_closed, and has its access log line', async (t) => {
  const collector = await startCollector()
  t.after(() => collector.close())
  const database = newDatabase()
  const token = (await run(['tokens', 'create', '--name', 'traced', '--database', database])).stdout.trim()
  const server = await serve(database, [], tracesTo(collector.url))
  t.after(() => stop(server))
  const { port } = new URL(server.url)
  // Half a body: the request is still being read when the client goes.
  const socket = connect(Number(port), '127.0.0.1')
  socket.on('error', () => {})
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id": 1,`)
  const inFlight = async () => parsePrometheus(await (await fetch(`${server.url}/metrics`)).text()).get('plantstore_http_requests_in_flight')
  await waitFor(async () => await inFlight() === 2, 5000, 'the request to be received') // and /metrics itself
  socket.destroy()
  await waitFor(() => collector.spans.some((span) => span.name === 'POST /plants'), 5000, 'the request\'s span')
  const span = collector.spans.find((span) => span.name === 'POST /plants')!
  assert.deepEqual(attribute(span, 'error.type'), { stringValue: 'client_closed' })
  assert.equal(attribute(span, 'http.response.status_code'), undefined)
  await waitFor(() => server.stdout().includes('"msg":"client hung up"'), 5000, 'the access log\'s line')
  const logged = server.stdout().split('\n').filter((line) => line.includes('"msg":"client hung up"')).map((line) => JSON.parse(line))
  assert.deepEqual(logged.map(({ method, url, statusCode }) => ({ method, url, statusCode })), [{ method: 'POST', url: '/plants', statusCode: 499 }], 'the access log\'s line')
})

test('at ratio 0 a request starts no trace, but one whose caller sampled its trace continues it', async (t) => {
  const collector = await startCollector()
  t.after(() => collector.close())
  await exercise(newDatabase(), { ...tracesTo(collector.url), OTEL_TRACES_SAMPLER_ARG: '0' })
  await waitFor(() => collector.spans.length > 0, 5000, 'the caller\'s trace')
  assert.deepEqual([...new Set(collector.spans.map((span) => span.traceId))], [CALLER_TRACE])
  const names = collector.spans.map((span) => span.name)
  assert.ok(names.includes('GET /plants/:id') && names.includes('store plants.get') && !names.includes('POST /plants'), names.join(', '))
})

test('the default sampler\'s ratio, read as the SDK reads OTEL_TRACES_SAMPLER_ARG', async () => {
  const { samplerRatioOf } = await import('../../src/telemetry/otel.js')
  assert.equal(samplerRatioOf('0.1'), 0.1)
  assert.equal(samplerRatioOf(' 0 '), 0)
  for (const arg of [undefined, '', 'often', '2', '-1']) assert.equal(samplerRatioOf(arg), 1)
})

test('sampling off: nothing is sent', async (t) => {
  const collector = await startCollector()
  t.after(() => collector.close())
  await exercise(newDatabase(), { ...tracesTo(collector.url), OTEL_TRACES_SAMPLER: 'always_off' })
  assert.deepEqual(collector.spans, [])
})

test('OTEL_SERVICE_NAME names the service', async (t) => {
  const collector = await startCollector()
  t.after(() => collector.close())
  await exercise(newDatabase(), { ...tracesTo(collector.url), OTEL_SERVICE_NAME: 'greenhouse' })
  await waitFor(() => collector.services.size > 0, 5000, 'a span')
  assert.deepEqual([...collector.services], ['greenhouse'])
})
