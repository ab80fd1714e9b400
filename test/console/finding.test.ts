import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createPlant } from '../executable.js'
import { checkAccessibility, launch, openPage, serveWithToken, signIn, skip } from '../browser.js'

test('Plants: a filter, a search, a sort by column and the count; a bad filter is shown at its place', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t)
  for (const [id, name, tag] of [[1, 'Monstera', 'tropical'], [2, 'Boston fern', 'tropical'], [3, 'Cactus', undefined], [4, 'Sword fern', 'dry']] as const) {
    assert.equal((await createPlant(server.url, token, { id, name, ...(tag !== undefined && { tag }) })).status, 200)
  }
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.locator('caption', { hasText: '4 plants on this page · 4 plants match' }).waitFor()

  const box = page.getByLabel('Filter expression')
  await box.fill('name = AND tag:*')
  await page.getByRole('button', { name: 'Filter' }).click()
  const error = page.locator('#filter-error')
  await error.getByText('expected a value after "=" at character 8').waitFor()
  assert.equal(await box.getAttribute('aria-invalid'), 'true')
  assert.equal(await box.evaluate((input: HTMLInputElement) => [document.activeElement === input, input.selectionStart]).then(String), 'true,7', 'the caret at the place named')

  await box.fill('tag = "tropical" OR NOT tag:*')
  await page.getByRole('button', { name: 'Filter' }).click()
  await page.locator('caption', { hasText: '3 plants on this page · 3 plants match' }).waitFor()
  assert.equal(await error.count(), 0)
  await page.getByRole('button', { name: 'Name' }).click()
  await page.locator('th[aria-sort="ascending"]', { hasText: 'Name' }).waitFor()
  await page.locator('tbody tr:first-child td:nth-child(2)', { hasText: 'Boston fern' }).waitFor()
  assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allTextContents(), ['Boston fern', 'Cactus', 'Monstera'])
  await page.getByRole('button', { name: /^Name/ }).click()
  await page.locator('th[aria-sort="descending"]', { hasText: 'Name' }).waitFor()
  await page.locator('tbody tr:first-child td:nth-child(2)', { hasText: 'Monstera' }).waitFor()
  assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allTextContents(), ['Monstera', 'Cactus', 'Boston fern'])

  await page.getByLabel('Search names').fill('FER')
  await page.getByRole('button', { name: 'Filter' }).click()
  await page.locator('caption', { hasText: '1 plant on this page · 1 plant matches' }).waitFor()
  assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allTextContents(), ['Boston fern'])
  // A change elsewhere is read again into the filtered, ordered list.
  assert.equal((await createPlant(server.url, token, { id: 5, name: 'Fernleaf', tag: 'tropical' })).status, 200)
  await page.locator('caption', { hasText: '2 plants on this page · 2 plants match' }).waitFor()
  await checkAccessibility(page, 'Plants, filtered')
  assert.deepEqual(consoleErrors([400]), [])
})

test('Live: a filter follows only matching plants, and says when one leaves', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t)
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.getByRole('link', { name: 'Live' }).click()
  await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor()
  await page.getByLabel('Only plants matching').fill('tag = "tropical"')
  await page.getByRole('button', { name: 'Follow' }).click()
  const feed = page.getByRole('list', { name: 'Events' })
  await page.getByRole('checkbox', { name: 'plant.left' }).waitFor()
  await createPlant(server.url, token, { id: 1, name: 'Cactus', tag: 'dry' })
  await createPlant(server.url, token, { id: 2, name: 'Monstera', tag: 'tropical' })
  await feed.locator('li.plant-created', { hasText: 'Monstera' }).waitFor()
  await fetch(`${server.url}/plants/2`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"name":"Monstera"}' })
  await feed.locator('li.plant-left', { hasText: '{"id":2}' }).waitFor()
  assert.equal(await feed.locator('li', { hasText: 'Cactus' }).count(), 0)
  await page.getByLabel('Only plants matching').fill('tag =')
  await page.getByRole('button', { name: 'Follow' }).click()
  await page.locator('#live-filter-error').getByText('expected a value after "=" at character 6').waitFor()
  await checkAccessibility(page, 'Live, filtered')
  assert.deepEqual(consoleErrors([400]), [])
})
