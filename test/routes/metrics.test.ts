import assert from 'node:assert/strict'
import { test } from 'node:test'
import { generateSecret } from '../../src/webhooks/signature.js'
import { build, buildWithToken } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import { parsePrometheus } from '../prometheus.js'

test('/metrics is Prometheus text whose counters move with traffic', async (t) => {
  const { app, send } = await buildWithToken(t)
  const before = parsePrometheus((await app.inject('/metrics')).body)
  const series = 'plantstore_http_requests_total{method="POST",route="/plants",status="200"}'
  assert.equal(before.get(series), undefined)
  for (let id = 1; id <= 5; id++) await send('POST', '/plants', { id, name: 'Fern' })
  await send('POST', '/plants', { id: 1, name: 'Ivy' })
  const res = await app.inject('/metrics')
  assert.equal(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  const after = parsePrometheus(res.body)
  assert.equal(after.get(series), 5)
  assert.equal(after.get('plantstore_http_requests_total{method="POST",route="/plants",status="409"}'), 1)
  assert.equal(after.get('plantstore_http_request_duration_seconds_count{method="POST",route="/plants",status="200"}'), 5)
  assert.ok(after.get('plantstore_store_operation_duration_seconds_count{operation="plants.create"}')! >= 6)
  assert.ok(after.get('plantstore_group_commit_batch_size_count')! >= 1, 'group-commit batches are counted')
  assert.equal(after.get('plantstore_group_commit_batch_size_sum'), 6)
  assert.equal(after.get('plantstore_http_requests_in_flight'), 1, 'the /metrics request itself')
  assert.ok(after.has('plantstore_process_resident_memory_bytes'), 'default process metrics')
})

test('--metrics off removes /metrics; --metrics token asks for its own token', async (t) => {
  const off = await build(t, { metrics: 'off' })
  assert.deepEqual([(await off.inject('/metrics')).statusCode, (await off.inject('/metrics')).json().error], [404, 3000])
  const secret = 'metrics-secret-0123456789'
  const guarded = await build(t, { metrics: 'token', metricsToken: secret })
  const none = await guarded.inject('/metrics')
  assert.deepEqual([none.statusCode, none.json().error], [401, 2000])
  const wrong = await guarded.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-secret-0123456780' } })
  assert.deepEqual([wrong.statusCode, wrong.json().error], [401, 2001])
  assert.equal((await guarded.inject({ url: '/metrics', headers: { authorization: `Bearer ${secret}` } })).statusCode, 200)
})

test('webhook metrics: backlog and concurrency per subscriber, delivery lag, attempts by outcome', async (t) => {
  const { app, send } = await buildWithToken(t, { webhookRetryBase: '50ms' })
  let up = false
  const receiver = await startReceiver(() => (up ? 200 : 503))
  t.after(() => receiver.close())
  const subscription = (await app.store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true }))!
  for (let id = 1; id <= 3; id++) await send('POST', '/plants', { id, name: 'Fern' })
  await waitFor(() => receiver.received.length >= 3, 5000, 'the first, failing attempts')
  // An attempt is counted once its outcome is recorded, just after the receiver has answered.
  const failed = async () => parsePrometheus((await app.inject('/metrics')).body).get('plantstore_webhook_deliveries_total{outcome="failed"}') ?? 0
  await waitFor(async () => await failed() >= 3, 5000, 'the failed attempts counted')
  const backlog = `plantstore_webhook_backlog{subscription="${subscription.id}"}`
  const during = parsePrometheus((await app.inject('/metrics')).body)
  assert.equal(during.get(backlog), 3, 'three events wait for the subscriber')
  assert.ok(during.get(`plantstore_webhook_concurrency{subscription="${subscription.id}"}`)! >= 1)
  assert.ok(during.get('plantstore_webhook_deliveries_total{outcome="failed"}')! >= 3)
  up = true
  await waitFor(async () => parsePrometheus((await app.inject('/metrics')).body).get('plantstore_webhook_delivery_lag_seconds_count') === 3,
    5000, 'three deliveries')
  const after = parsePrometheus((await app.inject('/metrics')).body)
  assert.equal(after.get(backlog), undefined, 'nothing waits any more')
  assert.equal(after.get('plantstore_webhook_deliveries_total{outcome="delivered"}'), 3)
  assert.ok(after.get('plantstore_webhook_delivery_lag_seconds_sum')! > 0)
})
