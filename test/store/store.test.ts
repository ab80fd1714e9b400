import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseDatabaseUrl } from '../../src/config/config.js'
import { openStore } from '../../src/store/open-store.js'
import { hashToken, TokenNameTaken } from '../../src/store/store.js'
import { DATABASES, freshDatabase } from '../helper.js'

/** A token, and the hash its row is stored under. */
const secret = (n: number) => `ps_${String(n).repeat(43)}`
const hash = (n: number) => hashToken(secret(n))

for (const [db, url] of Object.entries(DATABASES)) {
  describe(`the ${db} store`, () => {
    const open = async (t: { after: (fn: () => Promise<void>) => void }) => {
      const store = await openStore(parseDatabaseUrl(await freshDatabase(url)))
      t.after(() => store.close())
      return store
    }

    test('createPlant: created, then replayed, then conflict, keeping the stored content', async (t) => {
      const store = await open(t)
      const plant = { id: 2n ** 63n - 1n, name: 'Fern', tag: 'green' }
      assert.deepEqual(await store.plants.create(plant), { kind: 'created', plant, enqueued: false })
      assert.deepEqual(await store.plants.create({ ...plant }), { kind: 'replayed', plant })
      assert.deepEqual(await store.plants.create({ id: plant.id, name: 'Ivy' }), { kind: 'conflict', plant })
    })

    test('readChecked: a page of the log and, read with it, which of the tokens asked about are still active', async (t) => {
      const store = await open(t)
      const kept = await store.tokens.create({ name: 'kept', hash: hash(5), scopes: ['plants:read'], expiresAt: null })
      const revoked = await store.tokens.create({ name: 'revoked', hash: hash(6), scopes: ['plants:read'], expiresAt: null })
      const expired = await store.tokens.create({ name: 'expired', hash: hash(7), scopes: ['plants:read'], expiresAt: new Date(Date.now() - 1000) })
      const ids = [kept.id, revoked.id, expired.id, 999_999]
      const { latest } = await store.events.bounds()
      assert.deepEqual((await store.events.readChecked({ after: latest, limit: 10 }, ids)).events, [])
      await store.plants.create({ id: 1n, name: 'Fern' })
      const before = await store.events.readChecked({ after: latest, limit: 10 }, ids)
      assert.deepEqual(before.events.map((event) => event.sequence), [latest + 1n])
      assert.deepEqual(before.activeTokenIds, new Set([kept.id, revoked.id]))
      await store.tokens.revokeById(revoked.id)
      for (let id = 2n; id <= 4n; id++) await store.plants.create({ id, name: 'Ivy' })
      const after = await store.events.readChecked({ after: latest + 1n, limit: 2 }, ids)
      assert.deepEqual(after.events.map((event) => event.sequence), [latest + 2n, latest + 3n], 'in order, at most the limit')
      assert.deepEqual(after.events, await store.events.read({ after: latest + 1n, limit: 2 }), 'the events as read answers them')
      assert.deepEqual(after.activeTokenIds, new Set([kept.id]))
      assert.deepEqual((await store.events.readChecked({ after: latest, limit: 10 }, [])).activeTokenIds, new Set())
    })

    test('tokens: found by the token (stored as its hash), unique names, revocable by name or id, first token only once', async (t) => {
      const store = await open(t)
      assert.equal(await store.tokens.createFirst({ name: 'default', hash: hash(1), scopes: ['plants:read'], expiresAt: null }), true)
      assert.equal(await store.tokens.createFirst({ name: 'again', hash: hash(2), scopes: ['plants:read'], expiresAt: null }), false)
      const expiresAt = new Date(Date.now() + 60_000)
      const second = await store.tokens.create({ name: 'ci', hash: hash(3), scopes: ['plants:read', 'plants:write'], expiresAt })
      await assert.rejects(store.tokens.create({ name: 'ci', hash: hash(4), scopes: ['plants:read'], expiresAt: null }), TokenNameTaken)
      const found = await store.tokens.findByToken(secret(3))
      assert.equal(found?.name, 'ci')
      assert.deepEqual(found?.scopes, ['plants:read', 'plants:write'])
      assert.equal(found?.expiresAt?.getTime(), expiresAt.getTime())
      assert.equal(await store.tokens.findByToken(secret(9)), undefined)
      assert.equal((await store.tokens.revokeById(second.id))?.name, 'ci')
      assert.ok((await store.tokens.findByToken(secret(3)))?.revokedAt instanceof Date)
      assert.equal((await store.tokens.revokeByName('default'))?.name, 'default')
      assert.equal(await store.tokens.revokeByName('nobody'), undefined)
      assert.equal(await store.tokens.revokeByName(String(second.id)), undefined, 'a name is never taken for an id')
      assert.deepEqual((await store.tokens.list()).map((token) => token.name), ['default', 'ci'])
    })
  })
}

test('serving on an SQLite file, the store\'s own connection only reads: every write goes through its writer thread', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { openSqlite } = await import('../../src/store/sqlite/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-readonly-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const store = openSqlite({ path: join(dir, 'plants.db'), readonly: true })
  t.after(() => store.close())
  // Writes through the writer thread work: plants, tokens, subscriptions.
  assert.equal((await store.plants.create({ id: 1n, name: 'Fern' })).kind, 'created')
  assert.equal((await store.plants.replace({ id: 1n, name: 'Boston fern' })).kind, 'done')
  assert.equal((await store.tokens.create({ name: 'x', hash: Buffer.alloc(32, 1), scopes: ['plants:read'], expiresAt: null })).name, 'x')
  assert.ok(await store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true }))
  assert.equal((await store.tokens.revokeByName('x'))?.name, 'x')
  // One written on the serving connection by mistake fails: the bulk path writes on it, as the CLI's does.
  await assert.rejects(store.bulk.importPlants([{ id: 2n, name: 'Ivy' }], { onConflict: 'fail', notify: false }), /readonly|read-only|unavailable/i)
  assert.equal((await store.plants.get(1n)).plant?.name, 'Boston fern')
})
