import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { freshDatabase, withStore } from '../../databases.js'
import { createPlant, run, serve, stop } from '../../executable.js'
import { freePort, startReceiver, waitFor } from '../../receiver.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false
const script = fileURLToPath(new URL('../../../scripts/test-postgres.sh', import.meta.url))

describe('two plantstore instances on one PostgreSQL database', { skip }, () => {
  test('one id created 200 times across both: one content wins, its requests are 200, the rest 409', async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const token = (await run(['tokens', 'create', '--name', 'race', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database), serve(database)])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      createPlant(i % 2 === 0 ? a!.url : b!.url, token, { id: 42, name: i % 3 === 0 ? 'Three' : 'Other' })
        .then(async (res) => ({ status: res.status, body: await res.json() as { name?: string } }))))
    const ok = answers.filter((r) => r.status === 200)
    const conflicts = answers.filter((r) => r.status === 409)
    assert.equal(ok.length + conflicts.length, 200, JSON.stringify(answers.filter((r) => r.status !== 200 && r.status !== 409)))
    const winner = ok[0]!.body.name
    assert.ok(ok.every((r) => r.body.name === winner), 'every 200 carries the stored content')
    assert.equal(ok.length, winner === 'Three' ? 67 : 133, 'exactly the requests with the winning content are 200')
  })

  test('a token revoked through the CLI is refused at once by both instances', async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const token = (await run(['tokens', 'create', '--name', 'shared', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database), serve(database)])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    assert.equal((await createPlant(a!.url, token, { id: 1, name: 'x' })).status, 200)
    assert.equal((await createPlant(b!.url, token, { id: 2, name: 'x' })).status, 200)
    assert.equal((await run(['tokens', 'revoke', 'shared', '--database', database])).code, 0)
    assert.equal((await createPlant(a!.url, token, { id: 3, name: 'x' })).status, 401)
    assert.equal((await createPlant(b!.url, token, { id: 4, name: 'x' })).status, 401)
  })

  test('two dispatchers deliver each new plant once per attempt', async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    await run(['webhooks', 'add', receiver.url, '--database', database])
    const token = (await run(['tokens', 'create', '--name', 'hooks', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database), serve(database)])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    await Promise.all(Array.from({ length: 60 }, (_, id) => createPlant(id % 2 === 0 ? a!.url : b!.url, token, { id, name: 'p' })))
    await waitFor(() => receiver.received.length >= 60, 15_000, '60 deliveries')
    // Nothing left to send anywhere: no duplicate can still come.
    await waitFor(() => withStore(database, async (store) => [...(await store.webhooks.backlog()).values()].every((count) => count === 0)), 15_000, 'an empty backlog')
    const ids = receiver.received.map((r) => JSON.parse(r.body).id as number).sort((x, y) => x - y)
    assert.deepEqual(ids, Array.from({ length: 60 }, (_, id) => id), 'each plant exactly once')
  })

  test('a subscription made over HTTP on one instance is delivered to, once per plant, whichever instance took the create', async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    const token = (await run(['tokens', 'create', '--name', 'both', '--scope', 'plants:write', '--scope', 'webhooks:manage', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database, ['--webhook-allow-private']), serve(database, ['--webhook-allow-private'])])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    const created = await fetch(`${a!.url}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url })
    })
    assert.equal(created.status, 201)
    const { id: subscription } = await created.json() as { id: number }
    // Instance b may not know the subscription yet: its creates' deliveries wait in the outbox for its
    // next poll (or a's), and are sent all the same.
    await Promise.all(Array.from({ length: 40 }, (_, id) => createPlant(id % 2 === 0 ? b!.url : a!.url, token, { id, name: 'p' })))
    await waitFor(() => receiver.received.length >= 40, 15_000, '40 deliveries')
    // Nothing left to send anywhere: no duplicate can still come.
    const backlog = async () => ((await (await fetch(`${a!.url}/webhooks/${subscription}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { backlog: number }).backlog
    await waitFor(async () => await backlog() === 0, 15_000, 'an empty backlog')
    assert.deepEqual(receiver.received.map((r) => JSON.parse(r.body).id as number).sort((x, y) => x - y), Array.from({ length: 40 }, (_, id) => id))
  })

  test('PostgreSQL stopped and restarted under load: only 200 and 503 code 5001, never 429; no acknowledged plant lost', { timeout: 120_000 }, async (t) => {
    // A server of this test's own: stopping the shared one would break the tests running beside it.
    const dir = mkdtempSync(join(tmpdir(), 'plantstore-pg-'))
    const port = await freePort()
    const url = execFileSync(script, ['start', dir, String(port)], { encoding: 'utf8' }).trim()
    t.after(() => {
      execFileSync(script, ['stop', dir])
      rmSync(dir, { recursive: true, force: true })
    })
    const token = (await run(['tokens', 'create', '--name', 'load', '--database', url])).stdout.trim()
    const server = await serve(url)
    t.after(() => stop(server))

    const acknowledged: number[] = []
    const statuses = new Map<number, number>()
    let retryAfterSeen = false
    let next = 0
    const load = { running: true }
    const client = async () => {
      while (load.running) {
        const id = next++
        const res = await createPlant(server.url, token, { id, name: `p${id}` }).catch(() => undefined)
        if (res === undefined) continue
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 200) acknowledged.push(id)
        if (res.status === 503) {
          assert.equal((await res.json() as { error: number }).error, 5001)
          retryAfterSeen ||= res.headers.get('retry-after') !== null
        } else await res.arrayBuffer()
        if (res.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const clients = Array.from({ length: 8 }, client)
    t.after(() => { load.running = false })
    await waitFor(() => acknowledged.length > 200, 20_000, 'load before the outage')
    execFileSync(script, ['stop', dir])
    // More 503s than the failed-authentication limit (100 a minute): an outage is not a failed authentication.
    await waitFor(() => (statuses.get(503) ?? 0) > 150, 20_000, '503s during the outage')
    assert.equal((await fetch(`${server.url}/readyz`)).status, 503, '/readyz says not ready')
    const before = acknowledged.length
    execFileSync(script, ['resume', dir, String(port)])
    await waitFor(() => acknowledged.length > before + 200, 30_000, 'service to resume by itself')
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
    load.running = false
    await Promise.all(clients)

    assert.ok(retryAfterSeen, '503 answers carry Retry-After')
    assert.deepEqual([...statuses.keys()].filter((s) => s !== 200 && s !== 503), [], 'only 200 and 503')
    // The log tells the outage once as it begins and once as it ends, the driver's error once, no stack.
    await waitFor(() => server.stdout().includes('database reachable again'), 10_000, 'the recovery\'s log line')
    const warnings = server.stdout().split('\n').filter((line) => line.includes('"level":40'))
    const down = warnings.filter((line) => line.includes('database unreachable'))
    assert.equal(down.length, 1, warnings.join('\n'))
    assert.equal(JSON.parse(down[0]!).database, url)
    assert.match(JSON.parse(down[0]!).error, /ECONNREFUSED|terminating connection|shutting down|Connection terminated/)
    assert.deepEqual(warnings.filter((line) => line.includes('"stack"')), [], 'no stack in a warning')
    assert.equal(server.stdout().split('database reachable again').length - 1, 1)
    for (const id of acknowledged) {
      const res = await fetch(`${server.url}/plants/${id}`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.status, 200, `acknowledged plant ${id} is there`)
      await res.arrayBuffer()
    }
  })
})
