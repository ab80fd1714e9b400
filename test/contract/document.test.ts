import assert from 'node:assert/strict'
import { test } from 'node:test'
import Ajv2020 from 'ajv/dist/2020.js'
import { operations } from '../../src/contract/document.js'
import type { JsonSchema } from '../../src/contract/document.js'
import { buildWithToken, createToken } from '../helper.js'
import type { App } from '../helper.js'

const Ajv = Ajv2020.default

/** Routes as Fastify has them, "METHOD /path", read from printRoutes' tree. */
async function registeredRoutes (app: App): Promise<Set<string>> {
  await app.ready()
  const routes = new Set<string>()
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line)
    if (match === null) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    stack.push(match[2]!)
    // HEAD and OPTIONS are HTTP's own, answered for every path (plugins/methods.ts), not operations.
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD' && m !== 'OPTIONS')) {
      routes.add(`${method} ${stack.join('')}`)
    }
  }
  return routes
}

test('every documented operation has a route, and every route is documented', async (t) => {
  const { app } = await buildWithToken(t)
  const documented = new Set(operations.map((op) => `${op.method} ${op.url}`))
  // /docs and its assets are the rendered reference of the document, /console the operator console:
  // pages for people, not operations of the API.
  // The reference, the console and the redirect from / to the reference are pages, not operations.
  const routes = [...await registeredRoutes(app)].filter((route) => !/^\/(docs|console)\b|^\/$/.test(route.split(' ')[1]!))
  assert.deepEqual(routes.sort(), [...documented].sort())
})

test('each operation declares its security: a scope, or none for the operational endpoints', () => {
  for (const op of operations) {
    if (['/healthz', '/readyz', '/openapi.json', '/openapi.yaml', '/metrics'].includes(op.url)) assert.equal(op.scope, undefined, op.url)
    else if (op.url.startsWith('/webhooks')) assert.equal(op.scope, 'webhooks:manage', `${op.method} ${op.url}`)
    else if (op.url === '/tokens/current') assert.equal(op.scope, 'any', 'any valid token may ask who it is')
    else if (op.url.startsWith('/tokens')) assert.equal(op.scope, 'tokens:manage', `${op.method} ${op.url}`)
    else assert.match(String(op.scope), /^plants:(read|write)$/, `${op.method} ${op.url}`)
  }
})

/** Validates a real response against the document's schema for its operation and status. */
function assertDocumented (operationId: string, res: { statusCode: number, body: string }) {
  const op = operations.find((o) => o.operationId === operationId)!
  const schema = op.schema.response[String(res.statusCode)]
  assert.ok(schema, `${operationId} documents status ${res.statusCode}`)
  // The document's int32/int64 formats are the server's own keywords; here only the shape is checked.
  const validate = new Ajv({ strict: false, formats: { int32: true, int64: true, uri: true } }).compile(schema)
  assert.ok(validate(JSON.parse(res.body)), `${operationId} ${res.statusCode}: ${JSON.stringify(validate.errors)} ${res.body}`)
}

test('a sample response of each status a route answers validates against the document', async (t) => {
  const { app, send } = await buildWithToken(t)
  const reader = await createToken(app, { scopes: ['plants:read'] })
  assertDocumented('createPlant', await send('POST', '/plants', { id: 1, name: 'Fern', tag: 'green' }))
  assertDocumented('createPlant', await send('POST', '/plants', { id: 1, name: 'Fern', tag: 'green' }))
  assertDocumented('createPlant', await send('POST', '/plants', { id: 1, name: 'Ivy' }))
  assertDocumented('createPlant', await send('POST', '/plants', { id: 2 }))
  assertDocumented('createPlant', await send('POST', '/plants', '{oops'))
  assertDocumented('createPlant', await send('POST', '/plants', 'x', { 'content-type': 'text/plain' }))
  assertDocumented('createPlant', await send('POST', '/plants', JSON.stringify({ id: 3, name: 'p'.repeat(70_000) })))
  assertDocumented('createPlant', await app.inject({ method: 'POST', url: '/plants' }))
  assertDocumented('createPlant', await send('POST', '/plants', { id: 4, name: 'x' }, { authorization: `Bearer ${reader}` }))
  assertDocumented('listPlants', await send('GET', '/plants?limit=1'))
  assertDocumented('listPlants', await send('GET', '/plants?limit=0'))
  const writer = await createToken(app, { scopes: ['plants:write'] })
  assertDocumented('listPlants', await send('GET', '/plants', undefined, { authorization: `Bearer ${writer}` }))
  assertDocumented('getPlant', await send('GET', '/plants/1'))
  assertDocumented('getPlant', await send('GET', '/plants/404'))
  assertDocumented('getPlant', await send('GET', '/plants/abc'))
  assertDocumented('replacePlant', await send('PUT', '/plants/1', { name: 'Fern', tag: 'green' }))
  assertDocumented('replacePlant', await send('PUT', '/plants/1', { name: 'Fern' }, { 'if-match': '"stale"' }))
  assertDocumented('replacePlant', await send('PUT', '/plants/404', { name: 'Fern' }))
  assertDocumented('replacePlant', await send('PUT', '/plants/1', { id: 2, name: 'Fern' }))
  assertDocumented('deletePlant', await send('DELETE', '/plants/1', undefined, { 'if-match': '"stale"' }))
  assertDocumented('deletePlant', await send('DELETE', '/plants/404'))
  const deleted = await send('DELETE', '/plants/1')
  assert.equal(deleted.statusCode, 204)
  assert.ok(operations.find((o) => o.operationId === 'deletePlant')!.schema.response['204'] === undefined, '204 has no body')
  assertDocumented('getHealth', await app.inject('/healthz'))
  assertDocumented('getReadiness', await app.inject('/readyz'))
  assertDocumented('getOpenApiDocument', await app.inject('/openapi.json'))
})

test('an int64 parameter below or above the bounds the document gives is refused, as any other bound is', async (t) => {
  const { app } = await buildWithToken(t)
  const token = await createToken(app, { scopes: ['plants:read', 'webhooks:manage', 'tokens:manage'] })
  // Operations without path parameters, so the bound is the only thing wrong with the request.
  const bounded = operations.filter((op) => !op.url.includes(':')).flatMap((op) => Object.entries((op.schema.querystring?.properties ?? {}) as Record<string, JsonSchema>)
    .filter(([, schema]) => schema.format === 'int64' && (schema.minimum !== undefined || schema.maximum !== undefined))
    .map(([name, schema]) => ({ op, name, minimum: schema.minimum as number | undefined, maximum: schema.maximum as number | undefined })))
  assert.ok(bounded.length > 0, 'the document bounds some int64 parameter')
  for (const { op, name, minimum, maximum } of bounded) {
    const outside = [
      ...(minimum === undefined ? [] : [[BigInt(minimum) - 1n, `must be >= ${minimum}`] as const]),
      ...(maximum === undefined ? [] : [[BigInt(maximum) + 1n, `must be <= ${maximum}`] as const])
    ]
    for (const [value, words] of outside) {
      const res = await app.inject({ method: op.method, url: `${op.url}?${name}=${value}`, headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.statusCode, 400, `${op.method} ${op.url}?${name}=${value}: ${res.body}`)
      assert.deepEqual(res.json(), { error: 1001, message: `query/${name} ${words}` })
    }
  }
})
