/// <reference lib="dom" />
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkAccessibility, launch, openPage, serveWithToken, signIn, skip, screenshot } from '../browser.js'

test('Tokens: create one (shown once), sign in with it and see what its scopes forbid, revoke it and see it refused; sign out forgets', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t, ['plants:read', 'plants:write', 'webhooks:manage', 'tokens:manage'])
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.getByRole('link', { name: 'Tokens' }).click()

  const form = page.getByRole('form', { name: 'New token' })
  await form.getByLabel('Name').fill('reader')
  assert.ok(await form.getByRole('checkbox', { name: 'webhooks:admin' }).isDisabled(), 'a scope the operator lacks cannot be granted')
  await form.getByLabel('Expires in').selectOption('30d')
  await form.getByRole('button', { name: 'Create token' }).click()
  const reader = (await page.getByTestId('secret').textContent())!
  assert.match(reader, /^ps_[A-Za-z0-9_-]{43}$/)
  await page.locator('tr[data-name="reader"] td.state', { hasText: 'active' }).waitFor()
  await checkAccessibility(page, 'Tokens')
  await screenshot(page, 'console-tokens.png')

  // Sign out forgets the token; the reader sees only what plants:read allows.
  await page.getByRole('button', { name: 'Sign out' }).click()
  assert.equal(await page.evaluate(() => sessionStorage.length), 0)
  await signIn(page, server.url, reader)
  await page.getByText('Creating and changing plants needs plants:write.').waitFor()
  await page.getByRole('link', { name: 'Tokens' }).click()
  await page.getByText('This screen needs a token with the tokens:manage scope. Yours has: plants:read.').waitFor()
  await checkAccessibility(page, 'a screen the token may not see')
  await page.getByRole('button', { name: 'Sign out' }).click()

  await signIn(page, server.url, token)
  await page.getByRole('link', { name: 'Tokens' }).click()
  await page.locator('tr[data-name="reader"]').getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('button', { name: 'Yes, revoke' }).click()
  await page.locator('tr[data-name="reader"] td.state', { hasText: 'revoked' }).waitFor()
  assert.equal((await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${reader}` } })).status, 401)

  // The refused token cannot sign in.
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('API token').fill(reader)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText('That token is unknown, expired or revoked.').waitFor()
  assert.equal(await page.evaluate(() => sessionStorage.length), 0)
  assert.ok(!page.url().includes('ps_'), 'no token in the URL')
  assert.deepEqual(consoleErrors([401]), [])
})
