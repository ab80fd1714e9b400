import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose'
import type { CryptoKey, JWK } from 'jose'
import { build } from '../helper.js'
import type { App } from '../helper.js'

/** An identity provider on 127.0.0.1: OpenID discovery and a JWKS whose keys a test can rotate. */
async function startIssuer () {
  const state = { keys: [] as JWK[], fetches: 0 }
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    if (req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks.json` }))
    } else if (req.url === '/jwks.json') {
      state.fetches++
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }))
    } else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state, close: () => new Promise((resolve) => server.close(resolve)) }
}

async function newKey (kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true })
  return { kid, publicKey, privateKey, jwk: { ...await exportJWK(publicKey), kid, alg: 'RS256', use: 'sig' } }
}

describe('JWT bearer tokens from an OpenID Connect issuer', () => {
  let issuer: Awaited<ReturnType<typeof startIssuer>>
  let key: Awaited<ReturnType<typeof newKey>>
  let app: App
  before(async () => {
    issuer = await startIssuer()
    key = await newKey('key-1')
    issuer.state.keys = [key.jwk]
  })
  after(() => issuer.close())

  const sign = (claims: Record<string, unknown> = {}, options: { privateKey?: CryptoKey, kid?: string, iss?: string, aud?: string, exp?: string | number, sub?: string | null } = {}) => {
    const jwt = new SignJWT({ scope: 'plants:read plants:write', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? key.kid })
    if (options.sub !== null) jwt.setSubject(options.sub ?? 'alice')
    return jwt.setIssuer(options.iss ?? issuer.url)
      .setAudience(options.aud ?? 'plantstore')
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '5m')
      .sign(options.privateKey ?? key.privateKey)
  }

  const create = (token: string, id = 1) => app.inject({
    method: 'POST',
    url: '/plants',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { id, name: 'Fern' }
  })
  const refused = async (token: string, what: string) => {
    const res = await create(token)
    assert.equal(res.statusCode, 401, what)
    assert.equal(res.json().error, 2001, what)
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/, what)
  }

  test('a valid token is accepted, through discovery; scopes come from scope or scp', async (t) => {
    app = await build(t, { jwtIssuer: issuer.url, jwtAudience: 'plantstore', authFailureLimit: '0' })
    assert.equal((await create(await sign())).statusCode, 200)
    assert.equal((await create(await sign({ scope: undefined, scp: ['plants:write'] }), 2)).statusCode, 200)
    const reader = await create(await sign({ scope: 'plants:read' }), 3)
    assert.deepEqual([reader.statusCode, reader.json().error], [403, 2002])

    await refused(await sign({}, { exp: Math.floor(Date.now() / 1000) - 120 }), 'expired')
    await refused(await sign({}, { iss: 'https://evil.example' }), 'wrong issuer')
    await refused(await sign({}, { aud: 'someone-else' }), 'wrong audience')
    const stranger = await newKey('key-unknown')
    await refused(await sign({}, { privateKey: stranger.privateKey, kid: stranger.kid }), 'unknown key')
    await refused(await sign({}, { privateKey: stranger.privateKey }), 'known kid, other key')

    const [header, payload, signature] = (await sign()).split('.')
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, 'alg none, empty signature')
    await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`, 'alg none with a signature')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    await refused(`${header}.${b64({ ...claims, sub: 'mallory' })}.${signature}`, 'tampered payload')
    const pem = await exportSPKI(key.publicKey)
    const hmac = await new SignJWT({ scope: 'plants:write' }).setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .setIssuer(issuer.url).setAudience('plantstore').setExpirationTime('5m').sign(new TextEncoder().encode(pem))
    await refused(hmac, 'HS256 signed with the public key')
  })

  test('a rotated key (new kid) is picked up without a restart', async (t) => {
    app = await build(t, { jwtIssuer: issuer.url, jwtJwksUrl: `${issuer.url}/jwks.json`, authFailureLimit: '0' })
    assert.equal((await create(await sign())).statusCode, 200)
    const next = await newKey('key-2')
    issuer.state.keys = [key.jwk, next.jwk]
    // jose fetches the JWKS again for an unknown kid once its cooldown (2 s) has passed.
    const signed = await sign({}, { privateKey: next.privateKey, kid: next.kid })
    const deadline = Date.now() + 10_000
    let id = 2
    let status = (await create(signed, id)).statusCode
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = (await create(signed, ++id)).statusCode
    }
    assert.equal(status, 200)
    assert.ok(issuer.state.fetches >= 2)
  })

  test('a JWT without sub is refused: such clients would otherwise share one owner', async (t) => {
    app = await build(t, { jwtIssuer: issuer.url, authFailureLimit: '0' })
    await refused(await sign({}, { sub: null }), 'no sub')
    await refused(await sign({ sub: '' }, { sub: null }), 'an empty sub')
    const noSubscriber = await app.inject({ url: '/webhooks', headers: { authorization: `Bearer ${await sign({ scope: 'webhooks:manage' }, { sub: null })}` } })
    assert.equal(noSubscriber.statusCode, 401)
  })

  test('a token minted with a JWT expires no later than the JWT; its tickets too', async (t) => {
    app = await build(t, { jwtIssuer: issuer.url })
    const exp = Math.floor(Date.now() / 1000) + 300
    const jwt = await sign({ scope: 'tokens:manage plants:read' }, { exp })
    const minted = await app.inject({
      method: 'POST', url: '/tokens', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: { name: 'from-jwt', scopes: ['plants:read'] }
    })
    assert.equal(minted.statusCode, 201)
    assert.equal(minted.json().expiresAt, new Date(exp * 1000).toISOString())
    const longer = await app.inject({
      method: 'POST', url: '/tokens', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: { name: 'longer', scopes: ['plants:read'], expiresIn: '30d' }
    })
    assert.equal(longer.json().expiresAt, new Date(exp * 1000).toISOString())
    const ticket = await app.inject({ method: 'POST', url: '/events/tickets', headers: { authorization: `Bearer ${jwt}` } })
    assert.equal(ticket.statusCode, 201)
    assert.equal(ticket.json().expiresAt, new Date(exp * 1000).toISOString())
  })

  test('a stream opened with a JWT ends at its exp, and one through its ticket too', { timeout: 30_000 }, async (t) => {
    app = await build(t, { jwtIssuer: issuer.url })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const exp = Math.floor(Date.now() / 1000) + 3
    const jwt = await sign({ scope: 'plants:read' }, { exp })
    const { openStream } = await import('../sse.js')
    const direct = await openStream(`${base}/events`, { authorization: `Bearer ${jwt}` })
    const { ticket } = (await app.inject({ method: 'POST', url: '/events/tickets', headers: { authorization: `Bearer ${jwt}` } })).json() as { ticket: string }
    const viaTicket = await openStream(`${base}/events?ticket=${ticket}`)
    t.after(() => Promise.all([direct.close(), viaTicket.close()]))
    assert.deepEqual([direct.response.status, viaTicket.response.status], [200, 200])
    const deadline = exp * 1000 + 5000
    while (!(direct.ended && viaTicket.ended) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.ok(direct.ended && viaTicket.ended, 'both streams ended after the exp')
    assert.ok(Date.now() >= exp * 1000, 'not before it')
  })

  test('opaque tokens keep working beside JWTs', async (t) => {
    const { createToken } = await import('../helper.js')
    app = await build(t, { jwtIssuer: issuer.url })
    const opaque = await createToken(app)
    assert.equal((await create(opaque)).statusCode, 200)
  })
})
