import { test } from 'node:test'
import assert from 'node:assert/strict'
import { layerOf } from '../../bench/layer-of.js'

test('a profiled function is charged to its layer, whether built (dist) or run from source (tsx)', () => {
  // A clone in a directory whose name holds a layer's word (store) must not confuse it.
  const root = 'file:///home/me/src/plantstore'
  assert.equal(layerOf(`${root}/dist/telemetry/access-log.js`, 'requestCompleted'), 'access log')
  assert.equal(layerOf(`${root}/src/telemetry/metrics.ts`, 'series'), 'metrics and traces')
  assert.equal(layerOf(`${root}/dist/store/token-cache.js`, 'get'), 'auth (bearer, token cache, scopes)')
  assert.equal(layerOf(`${root}/src/store/sqlite/plants.ts`, ''), 'store')
  assert.equal(layerOf(`${root}/dist/http/store.js`, ''), 'store')
  assert.equal(layerOf(`${root}/dist/http/request-id.js`, 'genReqId'), 'request id')
  assert.equal(layerOf(`${root}/node_modules/fastify/lib/req-id-gen-factory.js`, 'getGenReqId'), 'request id')
  assert.equal(layerOf(`${root}/node_modules/fastify/lib/hooks.js`, 'next'), 'fastify')
  assert.equal(layerOf(`${root}/node_modules/@fastify/under-pressure/index.js`, 'onRequest'), 'our other plugins (errors, CORS, load shedding, routes table)')
  assert.equal(layerOf('node:internal/crypto/hash', 'hash'), 'auth (bearer, token cache, scopes)')
  assert.equal(layerOf('node:_http_outgoing', '_storeHeader'), 'node:http, streams, timers')
})

test('natives are charged by name, and idle time to nothing', () => {
  assert.equal(layerOf('', 'writeUtf8String'), 'socket writes (kernel)')
  assert.equal(layerOf('', 'writev'), 'socket writes (kernel)')
  assert.equal(layerOf('', 'writeString'), 'access log')
  assert.equal(layerOf('', '(garbage collector)'), 'garbage collection')
  assert.equal(layerOf('', '(program)'), 'V8 and natives (the rest)')
  assert.equal(layerOf('', '(idle)'), undefined)
})
