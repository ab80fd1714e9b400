import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { test } from 'node:test'
import { chromium } from 'playwright-core'
import { build } from './helper.js'

const CHROMIUM = '/usr/bin/chromium'
// CI installs Debian's chromium (.ci/run); a developer machine without it skips rather than fails.
const skip = !existsSync(CHROMIUM) && process.env.CI === undefined ? 'no /usr/bin/chromium (apt-get install chromium)' : false

test('/openapi.json and /openapi.yaml serve the document, keeping the original paths and webhook', async (t) => {
  const app = await build(t)
  const json = (await app.inject('/openapi.json')).json()
  assert.deepEqual(Object.keys(json.paths).filter((p) => p.startsWith('/plants')), ['/plants', '/plants/{id}'])
  assert.deepEqual(Object.keys(json.paths['/plants']).sort(), ['get', 'post'])
  assert.ok(json.paths['/plants/{id}'].delete)
  assert.ok(json.webhooks['/plant/webhook'].post)
  const yaml = await app.inject('/openapi.yaml')
  assert.match(String(yaml.headers['content-type']), /^application\/yaml/)
  assert.match(yaml.body, /^openapi: 3\.1\.0/)
})

test('/docs renders the API reference in Chromium from local files only', { skip, timeout: 60_000 }, async (t) => {
  const app = await build(t)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  t.after(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } })
  const foreign: string[] = []
  page.on('request', (request) => { if (!request.url().startsWith(url)) foreign.push(request.url()) })
  await page.goto(`${url}/docs`)
  const post = page.locator('.opblock-post .opblock-summary-path', { hasText: '/plants' }).first()
  await post.waitFor({ timeout: 20_000 })
  assert.equal(await post.innerText(), '/plants')
  await page.locator('.opblock-delete').first().waitFor()
  await post.click()
  await page.getByText('Creates a new plant in the store').first().waitFor()
  mkdirSync('test-output', { recursive: true })
  await page.screenshot({ path: 'test-output/docs.png', fullPage: false })
  assert.deepEqual(foreign, [], 'no request leaves the server: the page works offline')
})
