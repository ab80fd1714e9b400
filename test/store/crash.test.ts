import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { test } from 'node:test'
import { createPlant, newDatabase, run, serve } from '../executable.js'
import { seededRandom } from '../random.js'

// npm test kills the server 3 times; npm run test:crash sets PLANTSTORE_CRASH_KILLS=20.
const kills = Number(process.env.PLANTSTORE_CRASH_KILLS ?? 3)

test(`SIGKILL at random moments under load, ${kills} times: every acknowledged plant survives exactly`, { timeout: 60_000 + kills * 10_000 }, async (t) => {
  const random = seededRandom(t)
  const database = newDatabase()
  const token = (await run(['tokens', 'create', '--name', 'crash', '--database', database])).stdout.trim()
  const acknowledged = new Map<number, { name: string, tag: string }>()
  let nextId = 1

  for (let round = 0; round < kills; round++) {
    const server = await serve(database)
    const load = { running: true }
    // Sixteen clients create plants as fast as the server answers; only a 200 counts as acknowledged.
    const clients = Array.from({ length: 16 }, async () => {
      while (load.running) {
        const id = nextId++
        const plant = { name: `plant ${id} round ${round}`, tag: `t${id % 7}` }
        const res = await createPlant(server.url, token, { id, ...plant }).catch(() => undefined)
        if (res?.status === 200) acknowledged.set(id, plant)
        await res?.arrayBuffer().catch(() => {})
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 200 + random() * 600))
    server.child.kill('SIGKILL')
    await server.exited
    load.running = false
    await Promise.all(clients)
  }

  assert.ok(acknowledged.size > kills * 10, `the load was real: ${acknowledged.size} plants acknowledged`)
  const server = await serve(database)
  let missing = 0
  for (const [id, plant] of acknowledged) {
    const res = await fetch(`${server.url}/plants/${id}`, { headers: { authorization: `Bearer ${token}` } })
    if (res.status !== 200) { missing++; if (missing < 4) console.log('missing', id, res.status, await res.text()) } else assert.deepEqual(await res.json(), { id, ...plant }, `plant ${id} as acknowledged`)
  }
  server.child.kill('SIGTERM')
  await server.exited
  assert.equal(missing, 0, `${missing} of ${acknowledged.size} acknowledged plants lost`)

  const db = new Database(database.slice('sqlite:'.length), { readonly: true })
  assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }])
  db.close()
})
