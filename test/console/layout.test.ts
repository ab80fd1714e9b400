/// <reference lib="dom" />
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CONSOLE_CSP } from '../../src/routes/console.js'
import { checkAccessibility, launch, openPage, serveWithToken, skip, screenshot } from '../browser.js'

const SCREENS = ['Plants', 'Live', 'Webhooks', 'Tokens']

test('at 375 px wide, by keyboard alone: sign in, visit every screen, nothing wider than the screen, axe clean, CSP served', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t, ['plants:read', 'plants:write', 'webhooks:manage', 'tokens:manage'])
  const page0 = await fetch(`${server.url}/console`)
  assert.equal(page0.headers.get('content-security-policy'), CONSOLE_CSP)
  assert.doesNotMatch(await page0.text(), /<script>|<style>|https?:\/\//, 'no inline script or style, nothing from another origin')

  const { page, consoleErrors } = await openPage(await launch(t), { width: 375 })
  await page.goto(`${server.url}/console`)
  await checkAccessibility(page, 'sign-in')
  await page.keyboard.press('Tab')
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'token')
  await page.keyboard.type(token)
  await page.keyboard.press('Enter')
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  assert.equal(await page.evaluate(() => sessionStorage.getItem('plantstore.console.token')), token)
  assert.equal(await page.evaluate(() => localStorage.length), 0)

  for (const name of SCREENS) {
    // Tab to the screen's link and follow it with Enter.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press('Tab')
      if (await page.evaluate(() => document.activeElement?.textContent ?? '') === name) break
    }
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name, level: 1 }).waitFor()
    await page.waitForTimeout(300)
    const width = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(width <= 375, `${name} is ${width} px wide`)
    await checkAccessibility(page, `${name} at 375 px`)
  }
  await screenshot(page, 'console-narrow.png')
  assert.deepEqual(consoleErrors(), [])
})
