import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createPlant } from '../executable.js'
import { checkAccessibility, launch, openPage, serveWithToken, signIn, skip, screenshot } from '../browser.js'

test('Live: a plant created by curl appears in the feed and in the Plants list without a reload; the feed filters, pauses, and resumes after a drop', { skip, timeout: 120_000 }, async (t) => {
  const { token, server, down, up } = await serveWithToken(t)
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.locator('caption', { hasText: '0 plants on this page' }).waitFor()

  // In the list, in place, without a reload.
  await createPlant(server.url, token, '{"id":9007199254740993,"name":"Above 2^53"}')
  await page.locator('tr[data-id="9007199254740993"]').waitFor()

  await page.getByRole('link', { name: 'Live' }).click()
  await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor()
  const feed = page.getByRole('list', { name: 'Events' })
  // Exact JSON, as the API sends it: the id a number with every digit.
  await feed.getByText('{"name":"Above 2^53","id":9007199254740993}').waitFor()
  await createPlant(server.url, token, { id: 2, name: 'Fern' })
  await feed.locator('li.plant-created', { hasText: '"id":2}' }).waitFor()

  // Filtered by type; paused while hovered.
  await fetch(`${server.url}/plants/2`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
  await feed.locator('li.plant-deleted').waitFor()
  await page.getByRole('checkbox', { name: 'plant.deleted' }).uncheck()
  await feed.locator('li.plant-deleted').waitFor({ state: 'detached' })
  await feed.hover()
  await createPlant(server.url, token, { id: 3, name: 'Held back' })
  await page.getByText('Paused while you read: 1 new.').waitFor()
  assert.equal(await feed.locator('li', { hasText: 'Held back' }).count(), 0)
  await page.mouse.move(1, 1)
  await feed.locator('li', { hasText: 'Held back' }).waitFor()
  await checkAccessibility(page, 'Live')
  await screenshot(page, 'console-live.png')

  // The server goes away: a banner; it comes back: what happened meanwhile arrives, once.
  await down()
  await page.getByText('Live updates are disconnected; reconnecting…').waitFor()
  await up()
  await createPlant(server.url, token, { id: 4, name: 'While away' })
  await feed.locator('li', { hasText: 'While away' }).waitFor({ timeout: 15_000 })
  await page.getByText('Live updates are disconnected; reconnecting…').waitFor({ state: 'detached' })
  assert.equal(await feed.locator('li', { hasText: 'While away' }).count(), 1)
  assert.deepEqual(consoleErrors().filter((text) => !text.includes('net::ERR_')), [], 'nothing but the dropped connection')
})

test('Plants: a list answer that predates an event does not undo it', { skip, timeout: 120_000 }, async (t) => {
  const { token, server } = await serveWithToken(t)
  const { page, consoleErrors } = await openPage(await launch(t))
  await signIn(page, server.url, token)
  await page.locator('caption', { hasText: '0 plants on this page' }).waitFor()

  // The list the form's create asks for is answered, then held back until another plant's event is shown.
  let held!: () => void
  const answered = new Promise<void>((resolve) => { held = resolve })
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  let delivered!: Promise<void>
  await page.route((url) => url.pathname === '/plants' && url.search !== '', (route) => {
    delivered = (async () => {
      const response = await route.fetch()
      held()
      await released
      await route.fulfill({ response })
    })()
  }, { times: 1 })
  const form = page.getByRole('form', { name: 'New plant' })
  await form.getByLabel('ID').fill('1')
  await form.getByLabel('Name').fill('Monstera')
  await page.getByRole('button', { name: 'Create plant' }).click()
  await answered
  await createPlant(server.url, token, { id: 8, name: 'After the answer' })
  await page.locator('tr[data-id="8"]').waitFor()
  release()
  await delivered
  await page.waitForTimeout(300)
  assert.equal(await page.locator('tr[data-id="8"]').count(), 1, 'the stale answer removed plant 8')
  assert.equal(await page.locator('tr[data-id="1"]').count(), 1)
  assert.deepEqual(consoleErrors(), [])
})
