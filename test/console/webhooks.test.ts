/// <reference lib="dom" />
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createPlant } from '../executable.js'
import { startReceiver, waitFor } from '../receiver.js'
import { checkAccessibility, launch, openPage, serveWithToken, signIn, skip, screenshot } from '../browser.js'

test('Webhooks: subscribe a local receiver (the secret shown once and copied), see a delivery, redeliver, rotate, disable and enable', { skip, timeout: 120_000 }, async (t) => {
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  // The receiver listens on loopback, which only an operator's setting lets the API subscribe.
  const { token, server } = await serveWithToken(t, ['plants:read', 'plants:write', 'webhooks:manage'], ['--webhook-allow-private'])
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.getByRole('link', { name: 'Webhooks' }).click()

  const form = page.getByRole('form', { name: 'New subscription' })
  await form.getByLabel('URL').fill(receiver.url)
  await form.getByLabel('Description').fill('the shop')
  await form.getByLabel('plant.created').check()
  await form.getByLabel('Most per second').fill('50')
  await form.getByRole('button', { name: 'Subscribe' }).click()
  const secret = page.getByTestId('secret')
  await secret.waitFor()
  const shown = (await secret.textContent())!
  assert.match(shown, /^whsec_[A-Za-z0-9+/]{43}=$/)
  await page.getByRole('button', { name: 'Copy' }).click()
  await page.getByText('Copied.').waitFor()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown)
  await page.getByRole('button', { name: 'Done' }).click()
  assert.equal(await page.getByTestId('secret').count(), 0, 'never shown again')
  // The form starts over after a subscription, and the table counts in words.
  assert.deepEqual([await form.getByLabel('URL').inputValue(), await form.getByLabel('Most per second').inputValue(), await form.getByLabel('plant.created').isChecked()], ['', '', false])
  await page.getByText('1 subscription', { exact: true }).waitFor()

  await createPlant(server.url, token, { id: 1, name: 'Fern' })
  await waitFor(() => receiver.received.length === 1, 10_000, 'the delivery')
  const webhookId = receiver.received[0]!.headers['webhook-id']
  await page.getByRole('button', { name: /^Open subscription/ }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  const delivery = page.locator(`tr[data-event="${webhookId}"]`)
  await delivery.locator('td.state', { hasText: 'delivered' }).waitFor()
  // At 1280 px wide (the page's width), every control of the deliveries table is on screen.
  const redeliver = (await delivery.getByRole('button', { name: `Redeliver ${webhookId}` }).boundingBox())!
  assert.ok(redeliver.x + redeliver.width <= 1280, `Redeliver ends at ${redeliver.x + redeliver.width} px`)
  await checkAccessibility(page, 'Webhooks')
  await screenshot(page, 'console-webhooks.png', { fullPage: true })

  await delivery.getByRole('button', { name: `Redeliver ${webhookId}` }).click()
  await waitFor(() => receiver.received.length === 2, 10_000, 'the redelivery')
  assert.equal(receiver.received[1]!.headers['webhook-id'], webhookId, 'the same webhook-id')

  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await page.getByText('The new signing secret').waitFor()
  assert.notEqual(await page.getByTestId('secret').textContent(), shown)

  await page.getByRole('button', { name: 'Disable' }).click()
  await page.locator('section.detail strong.state', { hasText: 'disabled' }).waitFor()
  assert.equal(((await (await fetch(`${server.url}/webhooks`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{ state: string }>)[0]!.state, 'disabled')
  await page.getByRole('button', { name: 'Enable' }).click()
  await page.locator('section.detail strong.state', { hasText: 'enabled' }).waitFor()

  // Recover since a minute ago: nothing failed, so none.
  await page.getByLabel('Recover since').fill(new Date(Date.now() - 60_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16))
  await page.getByRole('button', { name: 'Recover' }).click()
  await page.getByText(/^0 failed or given-up events since/).waitFor()
  assert.deepEqual(consoleErrors(), [])
})
