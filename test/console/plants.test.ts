import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createPlant } from '../executable.js'
import { checkAccessibility, launch, openPage, serveWithToken, signIn, skip, screenshot } from '../browser.js'

test('Plants: create an id above 2^53, see every digit, edit through a conflict, delete with confirmation, filter by tag', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t)
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.getByRole('heading', { name: 'Plants', level: 1 }).waitFor()

  const form = page.getByRole('form', { name: 'New plant' })
  await form.getByLabel('ID').fill('9223372036854775807')
  await form.getByLabel('Name').fill('Monstera')
  await form.getByLabel('Tag').fill('tropical')
  await page.getByRole('button', { name: 'Create plant' }).click()
  const row = page.locator('tr[data-id="9223372036854775807"]')
  await row.waitFor()
  assert.equal(await row.locator('td.id').textContent(), '9223372036854775807')
  const stored = await (await fetch(`${server.url}/plants/9223372036854775807`, { headers: { authorization: `Bearer ${token}` } })).text()
  assert.equal(stored, '{"name":"Monstera","id":9223372036854775807,"tag":"tropical"}')
  await createPlant(server.url, token, { id: 7, name: 'Fern' })
  await page.locator('tr[data-id="7"]').waitFor()
  // A name with a right-to-left override stays inside its cell: it cannot turn "evil" into "live" beside it.
  await createPlant(server.url, token, { id: 8, name: '\u202eevil' })
  const reversed = page.locator('tr[data-id="8"] td', { hasText: 'evil' })
  await reversed.waitFor()
  assert.equal(await reversed.evaluate((cell) => getComputedStyle(cell).unicodeBidi), 'isolate')
  await page.locator('tr[data-id="8"]').getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('button', { name: 'Yes, delete' }).click()
  await page.locator('tr[data-id="8"]').waitFor({ state: 'detached' })
  await checkAccessibility(page, 'Plants')
  await screenshot(page, 'console-plants.png')

  // Someone else replaces the plant while it is open: Save meets 412, and the person chooses.
  await page.getByRole('button', { name: 'Edit plant 9223372036854775807' }).click()
  const nameField = page.getByRole('form', { name: 'Edit plant 9223372036854775807' }).getByLabel('Name')
  await nameField.fill('Swiss cheese plant')
  const put = await fetch(`${server.url}/plants/9223372036854775807`, {
    method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"name":"Monstera deliciosa","tag":"tropical"}'
  })
  assert.equal(put.status, 200)
  const writes: string[] = []
  page.on('request', (request) => { if (request.url().includes('/plants/')) writes.push(request.method()) })
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('alert').filter({ hasText: 'Monstera deliciosa' }).waitFor()
  assert.equal(await page.locator('p.announcement').textContent(), '', 'no earlier message beside the conflict')
  await page.getByRole('button', { name: 'Overwrite with mine' }).click()
  await page.locator('tr[data-id="9223372036854775807"] td', { hasText: 'Swiss cheese plant' }).waitFor()
  assert.deepEqual(writes.filter((method) => method !== 'GET'), ['PATCH', 'PATCH'], 'the editor sends merge patches')

  // Delete asks first.
  await page.locator('tr[data-id="7"]').getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('button', { name: 'Yes, delete' }).click()
  await page.locator('tr[data-id="7"]').waitFor({ state: 'detached' })
  assert.equal((await fetch(`${server.url}/plants/7`, { headers: { authorization: `Bearer ${token}` } })).status, 404)

  await page.getByLabel('Filter by tag').fill('tropical')
  await page.getByRole('button', { name: 'Filter' }).click()
  await page.getByText('1 plant on this page tagged tropical').waitFor()

  // An error is shown as one (an alert, in the error style), and replaces the message before it.
  await form.getByLabel('ID').fill('9223372036854775807')
  await form.getByLabel('Name').fill('Another')
  await page.getByRole('button', { name: 'Create plant' }).click()
  const error = page.locator('p.announcement.error[role="alert"]')
  await error.getByText(/exists with different content/).waitFor()
  assert.equal(await page.locator('p.announcement').count(), 1, 'one message at a time')
  assert.deepEqual(consoleErrors([409, 412]), [])
})
