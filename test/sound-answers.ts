import assert from 'node:assert/strict'
import { ERROR_TABLE } from '../src/contract/errors.js'

// Every code the error table (docs/errors.md) documents; a fuzzed answer must carry one of these, never anything else.
const DOCUMENTED = new Set(ERROR_TABLE.map((row) => row.code))

/** The input of a failing case as text, ids that are bigints included. */
const shown = (input: unknown) => (JSON.stringify(input, (_key, value: unknown) => typeof value === 'bigint' ? String(value) : value) ?? String(input)).slice(0, 300)

/** The server's promises under hostile input: no 5xx, and every error is the contract's Error body. */
export function assertSound (res: { statusCode: number, headers: Record<string, unknown>, body: string }, input: unknown) {
  const context = shown(input)
  assert.ok(res.statusCode < 500, `${res.statusCode} for ${context}: ${res.body}`)
  // HEAD answers carry the headers of the GET answer but no body.
  if (res.statusCode >= 400 && (input as { method?: string }).method !== 'HEAD') {
    assert.match(String(res.headers['content-type']), /^application\/json/, context)
    const body = JSON.parse(res.body)
    assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], context)
    assert.ok(DOCUMENTED.has(body.error), `undocumented code ${body.error} for ${context}`)
    assert.equal(typeof body.message, 'string')
  }
}
