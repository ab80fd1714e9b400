import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { build, createToken, DATABASES } from '../helper.js'
import type { Commit } from '../../src/store/store.js'

for (const [name, database] of Object.entries(DATABASES)) {
  describe(`the store announces what it committed, ${name}`, () => {
    test('creates, replaces and deletes, subscription changes and renewed deliveries; nothing for what changed nothing', async (t) => {
      const app = await build(t, { database, webhookAllowPrivate: 'true' })
      const heard: Commit[] = []
      t.after(app.store.commits.subscribe((commit) => { heard.push(commit) }))
      const send = (method: 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, payload?: unknown) => app.inject({
        method, url, headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) }, ...(payload !== undefined && { payload: JSON.stringify(payload) })
      })
      const token = await createToken(app, { scopes: ['plants:read', 'plants:write', 'webhooks:manage', 'tokens:manage'] })

      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await send('POST', '/plants', { id: 1, name: 'Fern' }) // a replay commits nothing
      await send('POST', '/plants', { id: 1, name: 'Ivy' }) // a conflict neither
      await send('PUT', '/plants/1', { name: 'Boston fern' })
      await send('PUT', '/plants/2', { name: 'nobody' })
      await send('DELETE', '/plants/1')
      assert.deepEqual(heard.splice(0), [
        { kind: 'plants', deliveriesWaiting: false }, { kind: 'plants', deliveriesWaiting: false }, { kind: 'plants', deliveriesWaiting: false }
      ])

      const hook = (await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/' })).json() as { id: number }
      await send('PATCH', `/webhooks/${hook.id}`, { state: 'disabled' })
      await send('PATCH', `/webhooks/${hook.id}`, { state: 'enabled' })
      await send('POST', `/webhooks/${hook.id}/recover`, { since: '2026-01-01T00:00:00Z' })
      await send('POST', '/plants', { id: 2, name: 'Moss' })
      await send('DELETE', `/webhooks/${hook.id}`)
      const later = heard.splice(0)
      // The create's delivery waits in the outbox, or (on PostgreSQL) was handed to this dispatcher.
      assert.equal(later[4]?.kind, 'plants')
      assert.deepEqual(later.filter((_commit, i) => i !== 4), [
        { kind: 'subscriptions', deliveriesDue: false },
        { kind: 'subscriptions', deliveriesDue: false },
        { kind: 'subscriptions', deliveriesDue: true },
        { kind: 'deliveries' },
        { kind: 'subscriptions', deliveriesDue: false }
      ])
    })
  })
}
