import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import type { Plant } from '../../src/store/store.js'
import { DATABASES, freshDatabase, withStore } from '../databases.js'
import { createPlant, newDatabase, run, serve, stop, workdir } from '../executable.js'

// The hard cases of a plant: both int64 ends, the first integer a double cannot hold, and names that
// JSON must escape or that are not ASCII; with and without tags.
const EDGE_PLANTS: Plant[] = [
  { id: -9223372036854775808n, name: 'the smallest id' },
  { id: 9223372036854775807n, name: 'the largest id', tag: 'edge' },
  { id: 9007199254740993n, name: '2^53 + 1' },
  { id: 0n, name: 'quotes " and \\ backslashes', tag: 'a "tag"' },
  { id: 1n, name: 'a\nnew line,\ta tab and \u0001', tag: '\r\n' },
  { id: 2n, name: 'emoji 🌿🪴 and CJK 植物園', tag: '草' }
]

/** Every database a test may use: a file per test for SQLite, a schema per test for PostgreSQL. */
const stores = () => Object.keys(DATABASES).map((kind) => kind === 'sqlite' ? 'sqlite' : 'postgres')
const freshUrl = async (kind: string) => kind === 'sqlite' ? newDatabase() : await freshDatabase('postgres:fresh')

const file = (name: string) => `${workdir}/${name}`

/** The ids of the plants a search finds in a store, in id order. */
const searched = (database: string, words: string[]) =>
  withStore(database, async (store) => (await store.plants.list({ limit: 1000, search: words })).plants.map((plant) => plant.id))

describe('plantstore export and import', () => {
  for (const from of stores()) {
    for (const to of stores()) {
      test(`a round trip ${from} → NDJSON → ${to} → NDJSON is identical, each line the body GET /plants/{id} answers`, async () => {
        const source = await freshUrl(from)
        await withStore(source, async (store) => { for (const plant of EDGE_PLANTS) await store.plants.create(plant) })
        const exported = file(`export-${from}-${to}.ndjson`)
        const out = await run(['export', '--output', exported, '--database', source])
        assert.equal(out.code, 0, out.stderr)
        assert.match(out.stderr, /^exported 6 plants to .* in [\d.]+ s/)
        const lines = readFileSync(exported, 'utf8').split('\n')
        assert.equal(lines.pop(), '', 'one line per plant, each ending in a newline')
        assert.deepEqual(lines.map((line) => /"id":(-?\d+)/.exec(line)![1]),
          ['-9223372036854775808', '0', '1', '2', '9007199254740993', '9223372036854775807'], 'in id order, every digit')

        const server = await serve(source)
        const token = (await run(['tokens', 'create', '--name', `t${Date.now()}`, '--database', source])).stdout.trim()
        for (const line of lines) {
          const id = /"id":(-?\d+)/.exec(line)![1]
          const res = await fetch(`${server.url}/plants/${id}`, { headers: { authorization: `Bearer ${token}` } })
          assert.equal(await res.text(), line, `plant ${id}: the export line is the GET body`)
        }
        assert.equal(await stop(server), 0)

        const target = await freshUrl(to)
        const imported = await run(['import', exported, '--database', target])
        assert.equal(imported.code, 0, imported.stderr)
        assert.match(imported.stderr, /imported 6 lines: 6 created, 0 identical skipped/)
        const again = await run(['export', '--database', target, '--quiet'])
        assert.equal(again.stdout, readFileSync(exported, 'utf8'))
        assert.equal(again.stderr, '', '--quiet: nothing on stderr')
        assert.deepEqual(await searched(target, ['largest']), [9223372036854775807n], 'imported plants are searchable')
      })
    }
  }

  for (const kind of stores()) {
    test(`${kind}: an import of 250 new plants (runs of 100 in one statement) and a replace are searchable`, async () => {
      const target = await freshUrl(kind)
      const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify({ id: i + 1, name: `Imported ${i % 2 === 0 ? 'aloe' : 'cactus'} ${i + 1}` }))
      writeFileSync(file(`runs-${kind}.ndjson`), lines.join('\n') + '\n')
      assert.equal((await run(['import', file(`runs-${kind}.ndjson`), '--database', target])).code, 0)
      assert.equal((await searched(target, ['aloe'])).length, 125)
      writeFileSync(file(`replace-${kind}.ndjson`), '{"id":1,"name":"Replaced yucca"}\n')
      assert.equal((await run(['import', file(`replace-${kind}.ndjson`), '--on-conflict', 'replace', '--database', target])).code, 0)
      assert.deepEqual(await searched(target, ['yucca']), [1n])
      assert.equal((await searched(target, ['aloe'])).length, 124, 'the replaced name is gone from the index')
    })
  }

  for (const kind of stores()) {
    test(`${kind}: a bad line at line 1000 stops the import there; a rerun after the fix finishes the job`, async () => {
      const database = await freshUrl(kind)
      const lines = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ id: i + 1, name: `plant ${i + 1}` }))
      lines[999] = '{"id": 1.5, "name": "not an int64"}'
      writeFileSync(file(`bad-${kind}.ndjson`), `${lines.join('\n')}\n`)
      const failed = await run(['import', file(`bad-${kind}.ndjson`), '--batch-size', '300', '--database', database])
      assert.equal(failed.code, 1)
      assert.equal(failed.stderr.trim(), 'plantstore: line 1000: body/id must be an int64 integer')
      assert.deepEqual(await withStore(database, (store) => store.bulk.contents()).then((c) => c.plants), 999, 'every line before it is stored')

      lines[999] = JSON.stringify({ id: 1000, name: 'plant 1000' })
      writeFileSync(file(`bad-${kind}.ndjson`), `${lines.join('\n')}\n`)
      const rerun = await run(['import', file(`bad-${kind}.ndjson`), '--database', database])
      assert.equal(rerun.code, 0, rerun.stderr)
      assert.match(rerun.stderr, /imported 1500 lines: 501 created, 999 identical skipped/)
    })

    test(`${kind}: a plant stored with other content: fail names the line and id, skip keeps it, replace overwrites it`, async () => {
      const database = await freshUrl(kind)
      await withStore(database, async (store) => { await store.plants.create({ id: 2n, name: 'stored' }) })
      writeFileSync(file(`conflict-${kind}.ndjson`), '{"id":1,"name":"one"}\n{"id":2,"name":"imported"}\n{"id":3,"name":"three"}\n')
      const failed = await run(['import', file(`conflict-${kind}.ndjson`), '--database', database])
      assert.equal(failed.code, 1)
      assert.match(failed.stderr, /^plantstore: line 2: plant 2 exists with different content/)
      const names = () => withStore(database, async (store) => (await store.plants.list({ limit: 10 })).plants.map((p) => `${p.id}:${p.name}`))
      assert.deepEqual(await names(), ['1:one', '2:stored'], 'the line before the conflict is stored, the ones after it are not')
      // Ids out of order (SQLite imports a batch sorted by id): still the file's first conflict, and
      // nothing after it in the file, even a lower id.
      writeFileSync(file(`unordered-${kind}.ndjson`), '{"id":9,"name":"nine"}\n{"id":2,"name":"imported"}\n{"id":0,"name":"zero"}\n')
      const unordered = await run(['import', file(`unordered-${kind}.ndjson`), '--database', database])
      assert.match(unordered.stderr, /^plantstore: line 2: plant 2 exists with different content/)
      assert.deepEqual(await names(), ['1:one', '2:stored', '9:nine'])
      await withStore(database, async (store) => { await store.plants.delete(9n) })
      const skip = await run(['import', file(`conflict-${kind}.ndjson`), '--on-conflict', 'skip', '--database', database])
      assert.match(skip.stderr, /imported 3 lines: 1 created, 1 identical skipped, 1 kept/)
      assert.deepEqual(await names(), ['1:one', '2:stored', '3:three'])
      const replace = await run(['import', file(`conflict-${kind}.ndjson`), '--on-conflict', 'replace', '--database', database])
      assert.match(replace.stderr, /imported 3 lines: 0 created, 2 identical skipped, 1 replaced/)
      assert.deepEqual(await names(), ['1:one', '2:imported', '3:three'])
    })
  }

  test('import reads stdin (-); usage mistakes exit 2', async () => {
    const database = newDatabase()
    assert.equal((await run(['import', '-', '--database', database, '--on-conflict', 'sometimes'])).code, 2)
    assert.equal((await run(['import', file('no-such-file.ndjson'), '--database', database])).code, 2)
    assert.equal((await run(['export', '--database', 'mysql://nowhere'])).code, 2)
    assert.match((await run(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/)
  })
})

describe('plantstore copy', () => {
  for (const to of stores()) {
    test(`sqlite → ${to}: plants, tokens, subscriptions and undelivered events; the tokens work; exports identical`, async () => {
      const source = newDatabase()
      await withStore(source, async (store) => {
        for (const plant of EDGE_PLANTS) await store.plants.create(plant)
        await store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/hook', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true })
        await store.plants.create({ id: 77n, name: 'after the subscription' })
        // A live Idempotency-Key (a patch that changes nothing writes no event).
        await store.plants.write({ operations: [{ op: 'patch', id: 77n, patch: {} }], answer: 'single', key: { owner: 'token:1', key: 'live', hash: 'h', expiresAt: Date.now() + 3_600_000 } })
      })
      const token = (await run(['tokens', 'create', '--name', 'kept', '--scope', 'plants:read', '--database', source])).stdout.trim()
      await run(['tokens', 'create', '--name', 'gone', '--database', source])
      await run(['tokens', 'revoke', 'gone', '--database', source])
      const target = await freshUrl(to)
      const copied = await run(['copy', '--from', source, '--to', target])
      assert.equal(copied.code, 0, copied.stderr)
      assert.match(copied.stderr, /copied 7 plants, 2 tokens, 1 webhook subscription and 1 undelivered event/)
      assert.equal((await run(['export', '--database', target])).stdout, (await run(['export', '--database', source])).stdout)
      const tokens = JSON.parse((await run(['tokens', 'list', '--json', '--database', target])).stdout) as Array<{ name: string, state: string, scopes: string[] }>
      assert.deepEqual(tokens.map((t) => [t.name, t.state, t.scopes.join(' ')]), [['kept', 'active', 'plants:read'], ['gone', 'revoked', 'plants:read plants:write']])
      const pending = await withStore(target, (store) => store.webhooks.listDeliveries({ limit: 10 }))
      assert.deepEqual(pending.map((d) => [d.plantId, d.state, d.url]), [[77n, 'pending', 'http://127.0.0.1:9/hook']])
      assert.deepEqual(await searched(target, ['subscription']), [77n], 'the copied plants are searchable')
      const keyed = (key: string, hash: string) => withStore(target, (store) => store.plants.write({
        operations: [{ op: 'patch', id: 77n, patch: {} }], answer: 'single', key: { owner: 'token:1', key, hash, expiresAt: Date.now() + 60_000 }
      }))
      const replayed = await keyed('live', 'h')
      assert.ok(replayed.kind === 'answered' && replayed.replayed && replayed.answer.body === '{"name":"after the subscription","id":77}', 'the live key came along')
      assert.equal((await keyed('live', 'another request')).kind, 'key-reused')

      const server = await serve(target)
      const read = await fetch(`${server.url}/plants/9223372036854775807`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(read.status, 200, 'the copied token works against the target')
      assert.equal((await createPlant(server.url, token, { id: 5, name: 'x' })).status, 403, 'with its scopes')
      await stop(server)
    })
  }

  test('a target that holds anything is refused, and nothing is written to it', async () => {
    const source = newDatabase()
    await withStore(source, (store) => store.plants.create({ id: 1n, name: 'one' }))
    for (const to of stores()) {
      const target = await freshUrl(to)
      await run(['tokens', 'create', '--name', 'there', '--database', target])
      const before = await withStore(target, (store) => store.bulk.contents())
      const refused = await run(['copy', '--from', source, '--to', target])
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /is not empty \(1 tokens\); copy writes only into an empty store/)
      assert.deepEqual(await withStore(target, (store) => store.bulk.contents()), before)
    }
  })

  test('a plant whose name holds U+0000 (SQLite took it before it was refused) stops a copy to PostgreSQL with its id; nothing is written', { timeout: 60_000, skip: DATABASES.postgres === undefined ? 'no PostgreSQL' : false }, async () => {
    const source = newDatabase()
    await withStore(source, async (store) => {
      await store.plants.create({ id: 1n, name: 'one' })
      await store.plants.create({ id: 2n, name: 'nul \u0000 here' })
    })
    const target = await freshUrl('postgres')
    const stopped = await run(['copy', '--from', source, '--to', target])
    assert.equal(stopped.code, 1)
    assert.match(stopped.stderr, /plant 2 holds U\+0000 in its name or tag, which PostgreSQL cannot store: change it in the source store \(PUT \/plants\/2\) and copy again/)
    assert.deepEqual(Object.values(await withStore(target, (store) => store.bulk.contents())).filter((count) => count > 0), [])
  })
})

describe('plantstore backup', () => {
  test('a backup taken while writers run holds every plant acknowledged before it began, and passes integrity_check', { timeout: 60_000 }, async () => {
    const database = newDatabase()
    const token = (await run(['tokens', 'create', '--name', 'writer', '--database', database])).stdout.trim()
    const server = await serve(database)
    const acknowledged: number[] = []
    let next = 0
    const writing = { on: true }
    const writer = async () => {
      while (writing.on) {
        const id = next++
        if ((await createPlant(server.url, token, { id, name: `p${id}` })).status === 200) acknowledged.push(id)
      }
    }
    const writers = Array.from({ length: 8 }, writer)
    while (acknowledged.length < 500) await new Promise((resolve) => setTimeout(resolve, 20))
    const before = [...acknowledged]
    const backup = file('backup.db')
    const result = await run(['backup', backup, '--database', database])
    writing.on = false
    await Promise.all(writers)
    await stop(server)
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stderr, /backed up \d+ pages to .*backup\.db; integrity_check ok/)
    const ids = new Set((await run(['export', '--database', `sqlite:${backup}`])).stdout.trim().split('\n').map((line) => Number(/"id":(\d+)/.exec(line)![1])))
    assert.deepEqual(before.filter((id) => !ids.has(id)), [], 'every plant acknowledged before the backup is in it')
    assert.equal((await run(['backup', backup, '--database', database])).code, 2, 'an existing file is not overwritten')
  })

  test('on PostgreSQL it points at pg_dump (exit 2)', { skip: DATABASES.postgres === undefined ? 'no PostgreSQL' : false }, async () => {
    const refused = await run(['backup', file('pg.db'), '--database', await freshDatabase('postgres:fresh')])
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /pg_dump/)
  })
})
