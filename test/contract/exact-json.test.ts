import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseExactJson } from '../../src/contract/exact-json.js'
import { toInt64 } from '../../src/contract/validators.js'

test('integers beyond 2^53 come back as exact bigints; the rest as JSON.parse gives them', () => {
  assert.deepEqual(parseExactJson('{"id": 9007199254740993, "n": 1.5, "s": "9007199254740993"}'),
    { id: 9007199254740993n, n: 1.5, s: '9007199254740993' })
  assert.deepEqual(parseExactJson('{"id": 12}'), { id: 12 })
  assert.deepEqual(parseExactJson('[-9223372036854775808, 1e400]'), [-9223372036854775808n, Infinity])
})

test('duplicate keys: the last wins on both paths; __proto__ is an own property, never a prototype', () => {
  assert.deepEqual(parseExactJson('{"id": 1, "id": 2}'), { id: 2 })
  assert.deepEqual(parseExactJson('{"id": 1, "id": 9007199254740993}'), { id: 9007199254740993n })
  const poisoned = parseExactJson('{"__proto__": {"name": "x"}, "id": 9007199254740993}') as Record<string, unknown>
  assert.equal(Object.getPrototypeOf(poisoned), Object.prototype)
  assert.equal(poisoned.name, undefined)
})

test('invalid JSON throws SyntaxError on both paths', () => {
  assert.throws(() => parseExactJson('{"id": 1'), SyntaxError)
  assert.throws(() => parseExactJson('{"id": 90071992547409930'), SyntaxError)
})

test('toInt64 accepts exactly the int64 range', () => {
  assert.equal(toInt64('9223372036854775807'), 9223372036854775807n)
  assert.equal(toInt64('-9223372036854775808'), -9223372036854775808n)
  assert.equal(toInt64('9223372036854775808'), undefined)
  assert.equal(toInt64(2 ** 53), undefined, 'an unsafe double may already have lost digits')
  assert.equal(toInt64(1.5), undefined)
  assert.equal(toInt64('0x10'), undefined)
  assert.equal(toInt64(' 7'), undefined)
})
