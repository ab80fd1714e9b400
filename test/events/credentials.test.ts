import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import type { TestContext } from 'node:test'
import { build, createToken, DATABASES, freshDatabase } from '../helper.js'
import { withStore } from '../databases.js'
import { openStream } from '../sse.js'
import { waitFor } from '../receiver.js'

/** A store another process can open too: a SQLite file (not :memory:), or a fresh PostgreSQL schema. */
async function sharedDatabase (t: TestContext, database: string) {
  if (!database.startsWith('sqlite')) return freshDatabase(database)
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-credentials-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return `sqlite:${join(dir, 'store.db')}`
}

async function serving (t: TestContext, database: string) {
  const url = await sharedDatabase(t, database)
  const app = await build(t, { database: url })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const writer = await createToken(app, { scopes: ['plants:write'], name: 'writer' })
  let id = 0
  const create = () => app.inject({
    method: 'POST', url: '/plants', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, payload: { id: ++id, name: 'Fern' }
  })
  return { app, base, url, create }
}

for (const [name, database] of Object.entries(DATABASES)) {
  describe(`a stream ends with its credential, ${name}`, () => {
    test('revoked by another process: streams opened with the token and with its ticket end, and get no event committed after', { timeout: 30_000 }, async (t) => {
      const { app, base, url, create } = await serving(t, database)
      const reader = await createToken(app, { scopes: ['plants:read'], name: 'reader' })
      const direct = await openStream(`${base}/events`, { authorization: `Bearer ${reader}` })
      const { ticket } = (await app.inject({ method: 'POST', url: '/events/tickets', headers: { authorization: `Bearer ${reader}` } })).json() as { ticket: string }
      const viaTicket = await openStream(`${base}/events?ticket=${ticket}`)
      t.after(() => Promise.all([direct.close(), viaTicket.close()]))
      await create()
      await direct.until((events) => events.length === 1)
      await viaTicket.until((events) => events.length === 1)

      // Revoked through a store of its own, as `plantstore tokens revoke` on the host (or another instance) does.
      await withStore(url, (other) => other.tokens.revokeByName('reader'))
      await create()
      await waitFor(() => direct.ended && viaTicket.ended, 5000, 'both streams to end')
      assert.equal(direct.events.length, 1, 'no event after the revocation')
      assert.equal(viaTicket.events.length, 1, 'no event after the revocation (ticket)')
      assert.equal((await fetch(`${base}/events?ticket=${ticket}`)).status, 401, 'the ticket is refused from then on')
    })

    test('an idle stream ends when its token is revoked over the API, and when an expiring token expires', { timeout: 30_000 }, async (t) => {
      const { app, base } = await serving(t, database)
      const manager = await createToken(app, { scopes: ['tokens:manage', 'plants:read'], name: 'manager' })
      const reader = await createToken(app, { scopes: ['plants:read'], name: 'idle' })
      const idle = await openStream(`${base}/events`, { authorization: `Bearer ${reader}` })
      const expiresAt = new Date(Date.now() + 2000)
      const shortLived = await createToken(app, { scopes: ['plants:read'], name: 'short', expiresAt })
      const expiring = await openStream(`${base}/events`, { authorization: `Bearer ${shortLived}` })
      t.after(() => Promise.all([idle.close(), expiring.close()]))
      assert.deepEqual([idle.response.status, expiring.response.status], [200, 200])

      const id = (await app.store.tokens.list()).find((token) => token.name === 'idle')!.id
      const revoked = await app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: { authorization: `Bearer ${manager}` } })
      assert.equal(revoked.statusCode, 204)
      await waitFor(() => idle.ended, 5000, 'the revoked token\'s stream to end')
      await waitFor(() => expiring.ended, 8000, 'the expired token\'s stream to end')
      assert.ok(Date.now() >= expiresAt.getTime(), 'not before its expiry')
    })
  })
}
