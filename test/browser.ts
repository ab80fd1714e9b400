/// <reference lib="dom" />
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import type { TestContext } from 'node:test'
import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'
import { newDatabase, run, serve, stop } from './executable.js'
import { freePort } from './receiver.js'

const CHROMIUM = '/usr/bin/chromium'
// The docs' screenshots are remade on purpose (npm run docs:screenshots); a test run writes its own under a temporary folder.
const SCREENSHOTS = process.env.PLANTSTORE_DOCS_SCREENSHOTS === '1' ? 'docs' : mkdtempSync(join(tmpdir(), 'plantstore-screenshots-'))

/** A screenshot named `name` (`console-plants.png`): into docs/ for npm run docs:screenshots, else a temporary folder. */
export async function screenshot (page: Page, name: string, options: { fullPage?: boolean } = {}) {
  await page.screenshot({ path: join(SCREENSHOTS, name), ...options })
}
export const skip = !existsSync(CHROMIUM) && process.env.CI === undefined ? 'no /usr/bin/chromium (apt-get install chromium)' : false

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** Debian's Chromium, headless, with nothing reaching beyond this machine. */
export async function launch (t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  t.after(() => browser.close())
  return browser
}

/**
 * A page that records what its console says: any error is a failure of the test, except Chromium's
 * own line for an answer the flow provoked on purpose (`allowedStatuses`, such as a 412 conflict).
 */
export async function openPage (browser: Browser, options: { width?: number } = {}) {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`))
  page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text()) })
  const consoleErrors = (allowedStatuses: number[] = []) => errors.filter((text) =>
    !allowedStatuses.some((status) => text.includes(`the server responded with a status of ${status}`)))
  return { page, consoleErrors }
}

export async function signIn (page: Page, url: string, token: string) {
  await page.goto(`${url}/console`)
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function checkAccessibility (page: Page, what: string) {
  // Evaluated by the browser's debugging protocol, which the page's CSP does not govern.
  if (!await page.evaluate(() => 'axe' in globalThis)) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string, impact: string, nodes: unknown[] }> }> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }))
  })
  assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), [], `${what}: ${JSON.stringify(violations)}`)
}

/**
 * The built server on a store of its own and a port it keeps when started again, with one token holding
 * `scopes` (the CLI's default when none); stopped when the test ends.
 */
export async function serveWithToken (t: TestContext, scopes: string[] = [], extra: string[] = []) {
  const database = newDatabase()
  const token = (await run(['tokens', 'create', '--name', 'operator', ...scopes.flatMap((scope) => ['--scope', scope]), '--database', database])).stdout.trim()
  const args = ['--port', String(await freePort()), ...extra]
  let server = await serve(database, args)
  t.after(() => stop(server))
  return {
    token,
    server,
    /** Stops the server: its clients see it go away. */
    down: () => stop(server),
    /** Starts it again on the same store and port (so at the same URL). */
    up: async () => { server = await serve(database, args) }
  }
}
