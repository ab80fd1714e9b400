import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { test } from 'node:test'
import { chromium } from 'playwright-core'
import type { Locator } from 'playwright-core'
import { build, createToken } from '../helper.js'

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

test('/docs: our title and logo, a clean console, and a plant created and read back with "Try it out"', { skip, timeout: 90_000 }, async (t) => {
  const app = await build(t)
  const token = await createToken(app)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  t.after(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } })
  const foreign: string[] = []
  const console: string[] = []
  page.on('request', (request) => { if (!request.url().startsWith(url)) foreign.push(request.url()) })
  page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') console.push(`${message.type()}: ${message.text()}`) })
  page.on('pageerror', (error) => console.push(`pageerror: ${error.message}`))
  await page.goto(`${url}/docs`)
  const create = page.locator('#operations-Plants-createPlant')
  await create.waitFor({ timeout: 20_000 })
  assert.equal(await page.title(), 'Plant Store API')
  const logo = String(await page.locator('.topbar-wrapper img').getAttribute('src'))
  assert.match(Buffer.from(logo.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString(), /<title>Plant Store<\/title>/,
    'the top bar shows our name, not the framework\'s logo')
  mkdirSync('test-output', { recursive: true })
  // The page as a reader first sees it, every operation listed (docs/docs-page.png is this picture).
  await page.screenshot({ path: 'test-output/docs.png', fullPage: true })

  // Authorize with an API token: the first scheme the dialog lists is bearerAuth.
  await page.locator('.btn.authorize').first().click()
  const schemes = page.locator('.modal-ux .auth-container h4')
  await schemes.first().waitFor()
  assert.match(await schemes.first().innerText(), /^bearerAuth/)
  await page.locator('.modal-ux .auth-container').first().locator('input').fill(token)
  await page.locator('.modal-ux .auth-container').first().locator('button.authorize').click()
  await page.locator('.modal-ux .btn-done').first().click()

  // "Try it out" on an operation: fill in what it asks, execute, and answer the status shown.
  const tryItOut = async (operation: Locator, field: string, value: string) => {
    await operation.locator('.opblock-summary').click()
    await operation.locator('.try-out__btn').click()
    await operation.locator(field).fill(value)
    await operation.locator('.execute').click()
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first()
    await status.waitFor()
    return (await status.innerText()).trim()
  }
  assert.equal(await tryItOut(create, 'textarea.body-param__text', '{"id": 9223372036854775807, "name": "Monstera", "tag": "tropical"}'), '200')
  const read = page.locator('#operations-Plants-getPlant')
  assert.equal(await tryItOut(read, 'input[placeholder="id"]', '9223372036854775807'), '200', 'and read it back')
  assert.match(await read.locator('.live-responses-table .microlight').first().innerText(), /"name": "Monstera"/)
  assert.equal((await app.inject({ url: '/plants/9223372036854775807', headers: { authorization: `Bearer ${token}` } })).json().name, 'Monstera')

  assert.deepEqual(foreign, [], 'no request leaves the server: the page works offline')
  assert.deepEqual(console, [], 'the browser console stays free of errors and warnings')
})
