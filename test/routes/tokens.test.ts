import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { build, createToken, DATABASES } from '../helper.js'
import type { App } from '../helper.js'
import type { Scope } from '../../src/store/store.js'

type Token = { id: number, name: string, scopes: Scope[], state: string, createdAt: string, expiresAt: string | null, lastUsedAt: string | null }

function sender (app: App, token: string) {
  return (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) => app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload: JSON.stringify(payload) })
  })
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`tokens over HTTP on ${db}`, () => {
    test('list, create (the token shown once, usable at once), revoke (refused from then on)', async (t) => {
      const app = await build(t, { database })
      const admin = await createToken(app, { name: 'admin', scopes: ['plants:read', 'plants:write', 'tokens:manage'] })
      const send = sender(app, admin)

      const created = await send('POST', '/tokens', { name: 'reader', scopes: ['plants:read'], expiresIn: '30d' })
      assert.equal(created.statusCode, 201)
      const body = created.json() as Token & { token: string }
      assert.match(body.token, /^ps_[A-Za-z0-9_-]{43}$/)
      assert.equal(created.headers.location, `/tokens/${body.id}`)
      assert.deepEqual([body.name, body.scopes, body.state, body.lastUsedAt], ['reader', ['plants:read'], 'active', null])
      const days = (Date.parse(body.expiresAt!) - Date.now()) / 86_400_000
      assert.ok(days > 29.9 && days <= 30, `expires in 30 days (${days})`)

      const reader = sender(app, body.token)
      assert.equal((await reader('GET', '/plants')).statusCode, 200)
      assert.equal((await reader('POST', '/plants', { id: 1, name: 'Fern' })).statusCode, 403)
      assert.equal((await reader('GET', '/tokens')).statusCode, 403, 'tokens:manage is never a default')

      const list = (await send('GET', '/tokens')).json() as Token[]
      assert.deepEqual(list.map((token) => [token.name, token.state]), [['admin', 'active'], ['reader', 'active']])
      assert.deepEqual(Object.keys(list[1]!).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scopes', 'state'])
      assert.ok(list[1]!.lastUsedAt !== null && Date.now() - Date.parse(list[1]!.lastUsedAt) < 60_000, 'the reader\'s use is written down')
      assert.ok(!JSON.stringify(list).includes(body.token))

      const revoked = await send('DELETE', `/tokens/${body.id}`)
      assert.equal(revoked.statusCode, 204)
      assert.equal((await reader('GET', '/plants')).statusCode, 401, 'refused at once on this instance')
      assert.equal((await send('DELETE', `/tokens/${body.id}`)).statusCode, 204, 'revoking again is a success')
      assert.equal(((await send('GET', '/tokens')).json() as Token[])[1]!.state, 'revoked')
      assert.equal((await send('DELETE', '/tokens/999')).json().error, 3000)
    })

    test('a token never grants, nor revokes, more than it holds, nor outlives itself', async (t) => {
      const app = await build(t, { database })
      const inExpiring = new Date(Date.now() + 3_600_000)
      const manager = await createToken(app, { name: 'manager', scopes: ['plants:read', 'tokens:manage'], expiresAt: inExpiring })
      const strong = await createToken(app, { name: 'strong', scopes: ['plants:read', 'plants:write', 'webhooks:admin'] })
      const send = sender(app, manager)

      const escalation = await send('POST', '/tokens', { name: 'writer', scopes: ['plants:read', 'plants:write'] })
      assert.equal(escalation.statusCode, 403)
      assert.equal(escalation.json().error, 2002)
      assert.match(String(escalation.headers['www-authenticate']), /scope="plants:write"/)
      assert.equal((await send('POST', '/tokens', { name: 'default' })).statusCode, 403, 'the default scopes include plants:write')

      const longer = (await send('POST', '/tokens', { name: 'forever', scopes: ['plants:read'] })).json() as Token
      assert.equal(longer.expiresAt, inExpiring.toISOString(), 'no later than the token that made it')
      const shorter = (await send('POST', '/tokens', { name: 'brief', scopes: ['tokens:manage'], expiresIn: '10m' })).json() as Token
      assert.ok(Date.parse(shorter.expiresAt!) < inExpiring.getTime())

      const strongId = ((await send('GET', '/tokens')).json() as Token[]).find((token) => token.name === 'strong')!.id
      const revoke = await send('DELETE', `/tokens/${strongId}`)
      assert.equal(revoke.statusCode, 403)
      assert.equal((await sender(app, strong)('GET', '/plants')).statusCode, 200, 'still valid')
    })

    test('bad bodies, taken names and the scope itself answer in the Error shape', async (t) => {
      const app = await build(t, { database })
      const send = sender(app, await createToken(app, { name: 'admin' }))
      const cases: Array<[unknown, number, number]> = [
        [{}, 400, 1001],
        [{ name: '' }, 400, 1001],
        [{ name: 'x', scopes: ['root'] }, 400, 1001],
        [{ name: 'x', scopes: [] }, 400, 1001],
        [{ name: 'x', expiresIn: '0d' }, 400, 1001],
        [{ name: 'x', expiresIn: 'soon' }, 400, 1001],
        [{ name: 'x', token: 'ps_chosen' }, 400, 1001],
        [{ name: 'admin' }, 409, 3004]
      ]
      for (const [payload, status, error] of cases) {
        const res = await send('POST', '/tokens', payload)
        assert.deepEqual([res.statusCode, res.json().error], [status, error], JSON.stringify(payload))
        assert.equal(typeof res.json().message, 'string')
      }
      assert.equal((await send('POST', '/tokens', { name: 'x', expiresIn: 'soon' })).json().message,
        'body/expiresIn must be a lifetime such as 30d, 12h or 90m (1 to 999999, then s, m, h, d or w)')
      assert.equal((await send('POST', '/tokens', { name: 'x', scopes: ['root'] })).json().message.startsWith('body/scopes/0 must be one of "plants:read", '), true)
      assert.equal((await send('DELETE', '/tokens/abc')).json().error, 1001)
      assert.equal((await send('DELETE', '/tokens/99999999999999999999')).statusCode, 400)
      const plain = sender(app, await createToken(app, { scopes: ['plants:read', 'plants:write'] }))
      const forbidden = await plain('GET', '/tokens')
      assert.deepEqual([forbidden.statusCode, forbidden.json().error], [403, 2002])
      assert.match(String(forbidden.headers['www-authenticate']), /scope="tokens:manage"/)
      assert.equal((await app.inject({ method: 'GET', url: '/tokens' })).statusCode, 401)
    })
  })
}

test('GET /tokens/current tells any valid token its own name, scopes and expiry', async (t) => {
  const app = await build(t)
  const expiresAt = new Date(Date.now() + 60_000)
  const res = await sender(app, await createToken(app, { name: 'reader', scopes: ['plants:read'], expiresAt }))('GET', '/tokens/current')
  assert.equal(res.statusCode, 200)
  assert.deepEqual(res.json(), { name: 'reader', scopes: ['plants:read'], expiresAt: expiresAt.toISOString() })
  assert.equal((await app.inject({ method: 'GET', url: '/tokens/current' })).statusCode, 401)
})
