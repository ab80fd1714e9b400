import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { DATABASES, freshDatabase, withStore } from '../databases.js'
import { cleanEnv, executable, newDatabase, run, workdir } from '../executable.js'

/** `plantstore import -` with `input` on its stdin. */
function importStdin (input: string | Buffer, database: string) {
  return new Promise<{ code: number | null, stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [executable, 'import', '-', '--database', database], { env: cleanEnv })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('close', (code) => { resolve({ code, stderr }) })
    child.stdin.end(input)
  })
}

const plantLine = (id: number, name = `plant ${id}`) => JSON.stringify({ id, name })

describe('plantstore import', () => {
  test('reads stdin (-), CRLF line ends and a last line without a newline', async () => {
    const database = newDatabase()
    const lines = Array.from({ length: 30_000 }, (_, i) => plantLine(i * 7919 % 30_000))
    const imported = await importStdin(lines.join('\r\n'), database)
    assert.equal(imported.code, 0, imported.stderr)
    assert.match(imported.stderr, /^imported 30000 lines: 30000 created, 0 identical skipped/)
    const bad = await importStdin(`${plantLine(30_000)}\n{"id":30001,"name":"no end"`, database)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^plantstore: line 2: body is not valid JSON/)
    assert.equal(await withStore(database, async (store) => (await store.bulk.contents()).plants), 30_001)
  })

  test('bytes that are not UTF-8 stop it at their line, the lines before stored; a byte order mark is skipped', async () => {
    const database = newDatabase()
    const bad = await importStdin(Buffer.concat([Buffer.from(`\uFEFF${plantLine(1)}\n${plantLine(2, '\uFFFD is a character')}\n{"id":3,"name":"a`), Buffer.from([0xff]), Buffer.from('"}\n')]), database)
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^plantstore: line 3: it is not UTF-8 \(at byte 18 of the line\)/)
    const stored = await withStore(database, async (store) => store.plants.list({ limit: 10 }))
    assert.deepEqual(stored.plants.map((plant) => plant.name), ['plant 1', '\uFFFD is a character'])
  })

  const stores = ['sqlite', ...(DATABASES.postgres === undefined ? [] : ['postgres'])]
  for (const kind of stores) {
    test(`${kind}: in a batch of hundreds, one stored plant with other content: fail names its line, skip and replace count it`, async () => {
      const database = kind === 'sqlite' ? newDatabase() : await freshDatabase('postgres:fresh')
      await withStore(database, async (store) => {
        await store.plants.create({ id: 151n, name: 'stored' })
        await store.plants.create({ id: 40n, name: 'plant 40' })
      })
      // Ids out of order, so that a sorted batch is not the file's order.
      const file = `${workdir}/runs-${kind}.ndjson`
      writeFileSync(file, Array.from({ length: 250 }, (_, i) => plantLine(250 - i)).join('\n') + '\n')
      const failed = await run(['import', file, '--database', database])
      assert.equal(failed.code, 1)
      assert.match(failed.stderr, /^plantstore: line 100: plant 151 exists with different content/)
      const count = () => withStore(database, async (store) => (await store.bulk.contents()).plants)
      assert.equal(await count(), 101, 'the 99 lines before the conflict are stored, and nothing after it')
      const skip = await run(['import', file, '--on-conflict', 'skip', '--database', database])
      assert.match(skip.stderr, /^imported 250 lines: 149 created, 100 identical skipped, 1 kept/)
      const replace = await run(['import', file, '--on-conflict', 'replace', '--database', database])
      assert.match(replace.stderr, /^imported 250 lines: 0 created, 249 identical skipped, 1 replaced/)
      assert.equal(await withStore(database, async (store) => (await store.plants.get(151n)).plant?.name), 'plant 151')
      assert.equal(await count(), 250)
    })
  }
})
