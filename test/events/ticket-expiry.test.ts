import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { createPlant } from '../executable.js'
import { launch, serveWithToken, skip } from '../browser.js'
import { waitFor } from '../receiver.js'

/** docs/events.md's EventSource snippet, as a reader copies it (the README links to it). */
function documentedSnippet (): string {
  const events = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8')
  return /```js\n(const API = [\s\S]*?)```/.exec(events)![1]!
}

test('the documented EventSource snippet survives its ticket\'s expiry: a new ticket, and on from the last event, from another origin', { skip, timeout: 90_000 }, async (t) => {
  // The page's own origin: another port of this machine.
  const pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'))
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => pages.close(resolve)))
  const origin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  const { token, server, down, up } = await serveWithToken(t, [], ['--ticket-lifetime', '2s', '--cors-origins', origin])
  const url = server.url
  const browser = await launch(t)
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(origin)
  await page.evaluate(({ token }) => {
    const g = globalThis as unknown as { token: string, seen: string[], show: (type: string, data: string) => void }
    g.token = token
    g.seen = []
    g.show = (type, data) => g.seen.push(`${type} ${data}`)
  }, { token })
  await page.evaluate(documentedSnippet().replace("'http://127.0.0.1:8080'", JSON.stringify(url)))
  const seen = () => page.evaluate(() => (globalThis as unknown as { seen: string[] }).seen)
  const streamsOpen = async () => Number(/^plantstore_streams_open (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0)

  await waitFor(async () => await streamsOpen() === 1, 10_000, 'the page\'s stream to open')
  await createPlant(url, token, { id: 1, name: 'Fern' })
  await waitFor(async () => (await seen()).length === 1, 10_000, 'the first event')
  // Past the ticket's lifetime, the server goes away and comes back: the source's reconnect is refused.
  const expired = Date.now() + 2500
  await waitFor(() => Date.now() > expired, 5000, 'the ticket to expire')
  await down()
  await up()
  await createPlant(url, token, { id: 2, name: 'Ivy' })
  await waitFor(async () => (await seen()).length === 2, 20_000, 'the event after a new ticket')
  assert.deepEqual(await seen(), ['plant.created {"name":"Fern","id":1}', 'plant.created {"name":"Ivy","id":2}'])
  assert.deepEqual(errors, [])
})
