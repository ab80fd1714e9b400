import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { buildWithToken } from '../helper.js'
import { assertSound } from '../sound-answers.js'

// Strings of every kind of character, lone surrogates included.
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.constantFrom('\uD800', '\uDFFF', 'a\uD83D', '\u0000', '\u202E', '🌿'.repeat(300), 'x'.repeat(300)))
const hugeNumber = fc.oneof(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.constantFrom('1e999', '-0', '0.0', '1E2', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '1.0000000000000000001'))
const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'name', 'tag', ''), fc.string({ maxLength: 8 }))
const jsonText = fc.oneof(
  fc.json({ depthSize: 'large' }),
  fc.tuple(hugeNumber, anyText, fc.option(anyText)).map(([id, name, tag]) =>
    `{"id": ${id}, "name": ${JSON.stringify(name)}${tag === null ? '' : `, "tag": ${JSON.stringify(tag)}`}}`),
  fc.array(fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }).map((pairs) =>
    `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`),
  fc.integer({ min: 1, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.integer({ min: 1, max: 5000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  anyText
)

test('hostile JSON bodies: never a 5xx, always the Error shape with a documented code', async (t) => {
  const { app, send } = await buildWithToken(t)
  await fc.assert(fc.asyncProperty(jsonText, async (text) => {
    assertSound(await send('POST', '/plants', text), text)
  }), { numRuns: 1500 })
  await fc.assert(fc.asyncProperty(jsonText, fc.integer({ min: 1, max: 20 }), async (text, id) => {
    assertSound(await send('PUT', `/plants/${id}`, text), text)
  }), { numRuns: 500 })
  assert.equal((await app.inject('/healthz')).statusCode, 200)
  assert.equal(({} as Record<string, unknown>).name, undefined, 'Object.prototype is untouched')
})

const contentType = fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1',
  'APPLICATION/JSON', 'application/json;;', 'application/jsonp', 'application/merge-patch+json', 'text/json', 'text/plain',
  'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '*/*', '', ';', 'application/json, text/plain'),
fc.string({ unit: fc.constantFrom(...'abcdefjnopstx/;=+-* '), maxLength: 30 }))

test('odd content types and charsets, repeated and strange headers: never a 5xx', async (t) => {
  const { app, token } = await buildWithToken(t)
  const headerText = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~\t'), maxLength: 80 })
  const authorization = fc.oneof(fc.constant(`Bearer ${token}`), fc.constant(`bearer  ${token}`), headerText,
    headerText.map((s) => `Bearer ${s}`), fc.constant(`Bearer ${token}, Bearer ${token}`), fc.constant(`Basic ${token}`))
  await fc.assert(fc.asyncProperty(contentType, authorization, jsonText, headerText, async (type, auth, body, other) => {
    const res = await app.inject({
      method: 'POST',
      url: '/plants',
      headers: { 'content-type': type, authorization: auth, 'x-request-id': other, accept: other, 'if-match': other },
      payload: body
    })
    assertSound(res, { type, auth, body })
  }), { numRuns: 1500 })
  assert.equal((await app.inject('/healthz')).statusCode, 200)
})

test('path tricks: never a 5xx, always the Error shape', async (t) => {
  const { app, send } = await buildWithToken(t)
  const segment = fc.oneof(fc.constantFrom('..', '.', '%2e%2e', '%2F', '%00', '%', '%zz', '%E0%A4%A', '9223372036854775808',
    '-0', '00001', '1e3', ' 1', '+1', '0x10', 'plants', '🌿', '%F0%9F%8C%BF', '?', '#', ';', '//'), fc.webSegment(), fc.bigInt().map(String))
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
  const prefixed = fc.tuple(fc.constantFrom('/plants/', '/plants?limit=', '/plants?after=', '/plants?tag=', '/', '/docs/'), segment)
    .map(([a, b]) => a + b)
  await fc.assert(fc.asyncProperty(fc.oneof(path, prefixed), fc.constantFrom('GET', 'PUT', 'DELETE', 'POST', 'PATCH', 'OPTIONS', 'HEAD'),
    async (url, method) => {
      assertSound(await app.inject({ method, url }), { method, url })
      assertSound(await send(method as 'GET', url), { method, url, authed: true })
    }), { numRuns: 1000 })
  assert.equal((await app.inject('/healthz')).statusCode, 200)
})
