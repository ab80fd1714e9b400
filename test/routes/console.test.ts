import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CONSOLE_CSP } from '../../src/routes/console.js'
import { build } from '../helper.js'

test('/console and its files: no token needed, the strict CSP on each, a validator, and nothing else under /console', async (t) => {
  const app = await build(t)
  for (const [url, type] of [['/console', 'text/html'], ['/console/console.js', 'text/javascript'], ['/console/console.css', 'text/css'], ['/console/logo.svg', 'image/svg+xml']]) {
    const res = await app.inject({ method: 'GET', url: url! })
    assert.equal(res.statusCode, 200, url)
    assert.ok(String(res.headers['content-type']).startsWith(type!), url)
    assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
    assert.equal(res.headers['x-frame-options'], 'DENY')
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    const again = await app.inject({ method: 'GET', url: url!, headers: { 'if-none-match': String(res.headers.etag) } })
    assert.equal(again.statusCode, 304)
  }
  const html = (await app.inject({ method: 'GET', url: '/console' })).body
  assert.match(html, /<script type="module" src="\/console\/console.js"><\/script>/)
  assert.doesNotMatch(html, /<script>|<style|style=|https?:\/\//)
  for (const url of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/app.js']) {
    assert.equal((await app.inject({ method: 'GET', url })).statusCode, 404, url)
  }
})
