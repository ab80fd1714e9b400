import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { checkWebhookUrl, isPublicAddress, publicOnlyLookup } from '../../src/webhooks/address-policy.js'
import { build, createToken, DATABASES } from '../helper.js'
import type { App } from '../helper.js'
import { setup, verify } from '../webhook-manager.js'
import { startReceiver, waitFor } from '../receiver.js'

async function deliveries (app: App, send: Awaited<ReturnType<typeof setup>>['send'], id: number) {
  return (await send('GET', `/webhooks/${id}/deliveries`)).json() as Array<{ id: string, plantId: number, state: string, attempts: number }>
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`webhook subscriptions over HTTP on ${db}`, () => {
    test('create, list, read, rotate, deliveries, redeliver, delete: each call, and the secret only in create and rotate', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { app, send, log } = await setup(t, database)

      const created = await send('POST', '/webhooks', { url: receiver.url, description: 'our shop' })
      assert.equal(created.statusCode, 201)
      const subscription = created.json() as { id: number, url: string, description: string, createdAt: string, secret: string }
      assert.deepEqual(Object.keys(subscription).sort(), ['backlog', 'consecutiveFailures', 'createdAt', 'description', 'events', 'filter', 'id', 'lastError',
        'lastSuccessAt', 'maxPerSecond', 'secret', 'state', 'url'])
      assert.equal(created.headers.location, `/webhooks/${subscription.id}`)
      assert.match(subscription.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal(subscription.description, 'our shop')
      assert.ok(!Number.isNaN(Date.parse(subscription.createdAt)))

      const list = await send('GET', '/webhooks')
      const health = { events: null, filter: null, maxPerSecond: null, state: 'enabled', lastSuccessAt: null, consecutiveFailures: 0, lastError: null, backlog: 0 }
      assert.deepEqual(list.json(), [{ id: subscription.id, url: receiver.url, description: 'our shop', createdAt: subscription.createdAt, ...health }])
      const read = await send('GET', `/webhooks/${subscription.id}`)
      assert.deepEqual(read.json(), list.json()[0])

      // A delivery, verified by the reference library with the secret the create answered.
      assert.equal((await send('POST', '/plants', { id: 1, name: 'Fern' })).statusCode, 200)
      await waitFor(() => receiver.received.length === 1, 5000, 'the first delivery')
      assert.ok(verify(subscription.secret, receiver.received[0]!))

      // Rotation: for its grace period both signatures are on every delivery.
      const rotated = (await send('POST', `/webhooks/${subscription.id}/rotate-secret`)).json() as { secret: string }
      assert.notEqual(rotated.secret, subscription.secret)
      await send('POST', '/plants', { id: 2, name: 'Ivy' })
      await waitFor(() => receiver.received.length === 2, 5000, 'the delivery after the rotation')
      const afterRotation = receiver.received[1]!
      assert.equal(String(afterRotation.headers['webhook-signature']).split(' ').length, 2, 'two signatures')
      assert.ok(verify(rotated.secret, afterRotation), 'a receiver that switched verifies it')
      assert.ok(verify(subscription.secret, afterRotation), 'a receiver that has not switched yet still does')

      // The events, newest first, paged.
      await waitFor(async () => (await deliveries(app, send, subscription.id)).every((d) => d.state === 'delivered'), 5000, 'outcomes recorded')
      const events = await deliveries(app, send, subscription.id)
      assert.deepEqual(events.map((e) => [e.plantId, e.state, e.attempts]), [[2, 'delivered', 1], [1, 'delivered', 1]])
      assert.deepEqual(Object.keys(events[0]!).sort(), ['attempts', 'id', 'lastError', 'lastStatus', 'nextAttemptAt', 'plantId', 'state', 'type'])
      const first = await send('GET', `/webhooks/${subscription.id}/deliveries?limit=1`)
      assert.deepEqual(first.json().map((e: { plantId: number }) => e.plantId), [2])
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!
      assert.deepEqual((await send('GET', next)).json().map((e: { plantId: number }) => e.plantId), [1])
      const typo = await send('GET', `/webhooks/${subscription.id}/deliveries?after=msg_x`)
      assert.deepEqual([typo.statusCode, typo.json().message], [400, 'query/after must be a delivery\'s id (msg_ and 32 hex digits), as the Link header gives'])

      // Redelivery: the same event again, with its webhook-id.
      const firstEvent = events[1]!
      assert.equal((await send('POST', `/webhooks/${subscription.id}/deliveries/${firstEvent.id}/redeliver`)).statusCode, 202)
      await waitFor(() => receiver.received.length === 3, 5000, 'the redelivery')
      assert.equal(receiver.received[2]!.headers['webhook-id'], firstEvent.id)
      assert.equal(receiver.received[2]!.body, receiver.received[0]!.body)
      assert.equal((await send('POST', `/webhooks/${subscription.id}/deliveries/msg_nope/redeliver`)).statusCode, 404)

      // Delete: no more deliveries. A subscription that stays says when the next create was dispatched.
      const witness = await startReceiver()
      t.after(() => witness.close())
      assert.equal((await send('POST', '/webhooks', { url: witness.url })).statusCode, 201)
      assert.equal((await send('DELETE', `/webhooks/${subscription.id}`)).statusCode, 204)
      assert.deepEqual([(await send('GET', `/webhooks/${subscription.id}`)).statusCode, (await send('DELETE', `/webhooks/${subscription.id}`)).json().error], [404, 3000])
      await send('POST', '/plants', { id: 3, name: 'Oak' })
      await waitFor(() => witness.received.length === 1, 5000, 'the create after the delete, at the subscription that stays')
      assert.equal(receiver.received.length, 3, 'nothing after the delete')

      for (const secret of [subscription.secret, rotated.secret]) {
        assert.equal(log().includes(secret), false, 'no secret in the log')
        assert.equal((await app.inject('/metrics')).body.includes(secret), false, 'no secret in the metrics')
        assert.equal(JSON.stringify((await send('GET', '/webhooks')).json()).includes(secret), false)
      }
    })

    test('a rotation\'s grace period over, deliveries carry the new signature only', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { app, send } = await setup(t, database)
      const { id, secret: old } = (await send('POST', '/webhooks', { url: receiver.url })).json() as { id: number, secret: string }
      // The store's rotation with no grace period: where a day later the API's rotation stands.
      const { secret } = (await app.store.webhooks.rotateSecret(id, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 0))!
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await waitFor(() => receiver.received.length === 1, 5000, 'the delivery')
      assert.ok(verify(secret, receiver.received[0]!))
      assert.throws(() => verify(old, receiver.received[0]!), 'the old secret verifies no more')
    })

    test('the scope: webhooks:manage is needed (403 code 2002 for a plants token), and a token gets it only when asked', async (t) => {
      const { app, send } = await setup(t, database)
      const plants = await createToken(app, { scopes: ['plants:read', 'plants:write'] })
      for (const [method, url, body] of [['POST', '/webhooks', { url: 'http://127.0.0.1:9/x' }], ['GET', '/webhooks'], ['GET', '/webhooks/1'],
        ['DELETE', '/webhooks/1'], ['POST', '/webhooks/1/rotate-secret'], ['GET', '/webhooks/1/deliveries'],
        ['POST', '/webhooks/1/deliveries/msg_x/redeliver']] as const) {
        const refused = await send(method, url, body, plants)
        assert.deepEqual([refused.statusCode, refused.json().error], [403, 2002], `${method} ${url}`)
        assert.match(String(refused.headers['www-authenticate']), /insufficient_scope", scope="webhooks:manage"/)
        assert.equal((await app.inject({ method, url })).statusCode, 401)
      }
    })
  })
}

// IANA special-purpose ranges, and IPv4 loopback or metadata addresses wrapped in each IPv6 transition form.
const SPECIAL_PURPOSE = ['::127.0.0.1', '64:ff9b::169.254.169.254', '2002:7f00:1::', '::ffff:0:127.0.0.1', '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '100.64.0.1', '198.18.0.1', '224.0.0.1', '255.255.255.255', '240.0.0.1', 'fec0::1', '192.0.2.1', '2001:db8::1', 'ff02::1', '100::1']

describe('server-side request forgery', () => {
  const REFUSED = ['http://127.0.0.1/hook', 'http://localhost:8080/hook', 'http://[::1]/hook', 'http://10.1.2.3/hook', 'http://172.16.5.4/hook',
    'http://172.31.255.255/hook', 'http://192.168.1.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://0.0.0.0/hook',
    'http://[fc00::1]/hook', 'http://[fd12:3456::1]/hook', 'http://[fe80::1]/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://2130706433/hook',
    'ftp://example.com/hook', 'file:///etc/passwd', 'not a url', ...SPECIAL_PURPOSE.map((address) => `http://${address.includes(':') ? `[${address}]` : address}/hook`)]

  test('every private, loopback, link-local or unspecified form, and every non-http scheme, is 400 code 1004', async (t) => {
    const app = await build(t)
    const manager = await createToken(app, { scopes: ['webhooks:manage'] })
    for (const url of REFUSED) {
      const res = await app.inject({ method: 'POST', url: '/webhooks', headers: { authorization: `Bearer ${manager}` }, payload: { url } })
      assert.deepEqual([res.statusCode, res.json().error], [400, 1004], url)
      assert.match(res.json().message, /^webhook URL refused: /)
      if (/^http:\/\/[^/]*[.:\]]\d*\//.test(url)) assert.match(res.json().message, /--webhook-allow-private/, 'an address refusal says how operators allow it')
    }
    const portZero = await app.inject({ method: 'POST', url: '/webhooks', headers: { authorization: `Bearer ${manager}` }, payload: { url: 'https://example.com:0/hook' } })
    assert.deepEqual([portZero.statusCode, portZero.json().message], [400, 'webhook URL refused: port 0 cannot receive webhooks'])
    for (const address of SPECIAL_PURPOSE) assert.equal(isPublicAddress(address), false, `${address} is judged at delivery too`)
    assert.equal(isPublicAddress('2002:5db8:d822::1'), true, '6to4 of a public IPv4 address is public')
    assert.equal(isPublicAddress('2606:4700::1111'), true)
    assert.deepEqual((await app.inject({ url: '/webhooks', headers: { authorization: `Bearer ${manager}` } })).json(), [], 'none was stored')
    // Public addresses pass (an address literal needs no DNS).
    assert.equal(await checkWebhookUrl('https://93.184.216.34/hook', false), 'https://93.184.216.34/hook')
    assert.equal(await checkWebhookUrl('http://127.0.0.1:9/hook', true), 'http://127.0.0.1:9/hook', 'unless the operator allows them')
  })

  test('at delivery a host that now resolves to a private address is refused; the CLI\'s subscriptions are an operator\'s', async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    const app = await build(t, { webhookRetryBase: '10s' })
    const writer = await createToken(app)
    // As if made when "localhost" pointed elsewhere: an integrator's subscription, not an operator's.
    const integrators = (await app.store.webhooks.addSubscription({ url: receiver.url.replace('127.0.0.1', 'localhost'), secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: false }))!
    await app.inject({ method: 'POST', url: '/plants', headers: { authorization: `Bearer ${writer}` }, payload: { id: 1, name: 'Fern' } })
    await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1, subscriptionId: integrators.id }))[0]?.state === 'failed', 5000, 'a refused attempt')
    const [refused] = await app.store.webhooks.listDeliveries({ limit: 1, subscriptionId: integrators.id })
    assert.match(String(refused!.lastError), /address refused: localhost resolves to an address that is not public \(.*--webhook-allow-private\)/)
    assert.doesNotMatch(String(refused!.lastError), /127\.0\.0\.1/, 'a refusal never says what a name resolved to')
    assert.equal(receiver.received.length, 0)
    await new Promise<void>((resolve, reject) => publicOnlyLookup('localhost', {}, (error) => (error === null ? reject(new Error('resolved')) : resolve())))

    await app.store.webhooks.addSubscription({ url: receiver.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true })
    await app.webhooks.refresh()
    await app.inject({ method: 'POST', url: '/plants', headers: { authorization: `Bearer ${writer}` }, payload: { id: 2, name: 'Ivy' } })
    await waitFor(() => receiver.received.length === 1, 5000, 'the operator\'s subscription is delivered to')
  })
})
