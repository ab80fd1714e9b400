import assert from 'node:assert/strict'
import { test } from 'node:test'
import { GENERATED, readPage, withTable } from '../../scripts/docs-tables.js'

test('the configuration and error tables in docs/ are those config.ts and errors.ts make (npm run docs:tables)', () => {
  for (const [path, table] of Object.entries(GENERATED)) {
    const page = readPage(path)
    assert.equal(page, withTable(page, table()), `${path} differs from its source: run npm run docs:tables`)
  }
})

test('docs/http.md lists the headers CORS exposes, as cors.ts exposes them', async () => {
  const { EXPOSED_HEADERS } = await import('../../src/http/cors.js')
  assert.ok(readPage('docs/http.md').replace(/\s+/g, ' ').includes(`Access-Control-Expose-Headers: ${EXPOSED_HEADERS.join(', ')}`))
})
