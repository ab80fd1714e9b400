import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { createPlant, newDatabase, run, serve } from '../executable.js'
import { freePort, startReceiver, waitFor } from '../receiver.js'

const fast = ['--webhook-retry-base', '100ms', '--webhook-timeout', '1s']

/** The names of a process's threads (Node 24 names worker threads after their `name`, cut at 15 characters; Node 22 does not). */
const threadNames = (pid: number) => readdirSync(`/proc/${pid}/task`).map((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim())
const namesThreads = threadNames(process.pid).includes('MainThread')

describe('webhooks from the command line', () => {
  test('add --json, list, deliveries --json, remove; only http(s) URLs', async () => {
    const database = newDatabase()
    const added = await run(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--json', '--database', database])
    assert.equal(added.code, 0, added.stderr)
    const subscription = JSON.parse(added.stdout)
    assert.deepEqual(Object.keys(subscription).sort(), ['id', 'secret', 'url'])
    assert.match(subscription.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    const list = JSON.parse((await run(['webhooks', 'list', '--json', '--database', database])).stdout)
    assert.deepEqual(list.map((s: { url: string }) => s.url), ['http://127.0.0.1:9/hook'])
    assert.equal(JSON.stringify(list).includes('whsec_'), false, 'list never shows secrets')
    assert.deepEqual(JSON.parse((await run(['webhooks', 'deliveries', '--json', '--database', database])).stdout), [])
    assert.equal((await run(['webhooks', 'remove', String(subscription.id), '--database', database])).code, 0)
    assert.deepEqual(JSON.parse((await run(['webhooks', 'list', '--json', '--database', database])).stdout), [])
    for (const bad of ['ftp://example.test/x', 'not a url', 'file:///etc/passwd']) {
      const refused = await run(['webhooks', 'add', bad, '--database', database])
      assert.equal(refused.code, 2)
      assert.match(refused.stderr, /^plantstore: invalid webhook URL/)
    }
    assert.equal((await run(['webhooks', 'remove', '999', '--database', database])).code, 1)
  })

  test('add --events --max-per-second, disable, enable, recover; bad lists are usage errors', async () => {
    const database = newDatabase()
    const added = await run(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'plant.created,webhook.disabled', '--max-per-second', '3', '--json', '--database', database])
    assert.equal(added.code, 0, added.stderr)
    const { id } = JSON.parse(added.stdout)
    const listed = async () => JSON.parse((await run(['webhooks', 'list', '--json', '--database', database])).stdout)[0]
    assert.deepEqual((({ events, state, backlog }) => ({ events, state, backlog }))(await listed()),
      { events: ['plant.created', 'webhook.disabled'], state: 'enabled', backlog: 0 })
    assert.equal((await run(['webhooks', 'disable', String(id), '--database', database])).code, 0)
    assert.equal((await listed()).state, 'disabled')
    const enabled = await run(['webhooks', 'enable', String(id), '--database', database])
    assert.equal(enabled.stdout, `subscription ${id}: enabled\n`)
    assert.equal((await listed()).state, 'enabled')
    const recovered = await run(['webhooks', 'recover', String(id), '--since', '2026-01-01T00:00:00Z', '--database', database])
    assert.equal(recovered.stdout, `subscription ${id}: 0 events due again\n`)
    for (const bad of [['--events', 'plant.eaten'], ['--events', ''], ['--max-per-second', '0']]) {
      const refused = await run(['webhooks', 'add', 'http://127.0.0.1:9/hook', ...bad, '--database', database])
      assert.equal(refused.code, 2, refused.stderr)
      assert.match(refused.stderr, /^plantstore: invalid --(events|max-per-second)/)
    }
    assert.equal((await run(['webhooks', 'enable', '999', '--database', database])).code, 1)
    assert.equal((await run(['webhooks', 'recover', '999', '--since', '2026-01-01T00:00:00Z', '--database', database])).code, 1)
  })

  test('the dispatcher thread runs while anyone subscribes: it starts with the first subscriber and ends after the last', async (t) => {
    const database = newDatabase()
    const receiver = await startReceiver(() => 200)
    t.after(() => receiver.close())
    const token = (await run(['tokens', 'create', '--name', 'lifecycle', '--database', database])).stdout.trim()
    const server = await serve(database)
    t.after(() => server.child.kill('SIGKILL'))
    const pid = server.child.pid!
    // The thread's start and end are logged (lines reach stdout within a second); where the platform
    // names threads, the thread itself is looked for too.
    const logged = (text: string) => server.stdout().split(text).length - 1
    const running = () => threadNames(pid).includes('webhook-dispatc')
    const dispatching = (round: number) => logged('dispatcher thread started') === round && (!namesThreads || running())
    const idle = (round: number) => logged('dispatcher thread ended') === round && (!namesThreads || !running())
    assert.ok(idle(0), 'nobody subscribes yet')

    // Each subscriber is added and removed from another process, as an operator would: the server
    // sees it at its safety poll (1 s).
    for (const round of [1, 2]) {
      const { id } = JSON.parse((await run(['webhooks', 'add', receiver.url, '--json', '--database', database])).stdout)
      await waitFor(() => dispatching(round), 5000, `the dispatcher thread to start (round ${round})`)
      assert.equal((await createPlant(server.url, token, { id: round, name: `Round ${round}` })).status, 200)
      await waitFor(() => receiver.received.some((request) => JSON.parse(request.body).id === round), 5000, `round ${round}'s delivery`)
      assert.equal((await run(['webhooks', 'remove', String(id), '--database', database])).code, 0)
      await waitFor(() => idle(round), 5000, `the dispatcher thread to end (round ${round})`)
    }
    assert.equal(receiver.received.length, 2, 'each plant once, to the subscriber of its time')
    assert.doesNotMatch(server.stdout(), /dispatcher thread ended; starting another/, 'an end asked for is not a failure')
  })

  test('a plant acknowledged just before a SIGKILL is delivered after the restart', async (t) => {
    const database = newDatabase()
    const port = await freePort()
    const { secret } = JSON.parse((await run(['webhooks', 'add', `http://127.0.0.1:${port}/hook`, '--json', '--database', database])).stdout)
    const token = (await run(['tokens', 'create', '--name', 'crash', '--database', database])).stdout.trim()

    // The subscriber is down: the first attempts fail, the event waits in the outbox.
    const first = await serve(database, fast)
    const res = await createPlant(first.url, token, '{"id": 9007199254740993, "name": "Survivor"}')
    assert.equal(res.status, 200)
    first.child.kill('SIGKILL')
    assert.equal(await first.exited, null, 'killed, not exited')

    const receiver = await startReceiver(() => 200, port)
    t.after(() => receiver.close())
    const second = await serve(database, fast)
    t.after(() => second.child.kill('SIGKILL'))
    await waitFor(() => receiver.received.length >= 1, 20_000, 'the delivery after the restart')
    const [request] = receiver.received
    assert.equal(request!.body, '{"id":9007199254740993,"name":"Survivor"}')
    assert.ok(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>))

    await waitFor(async () => {
      const [delivery] = JSON.parse((await run(['webhooks', 'deliveries', '--json', '--database', database])).stdout)
      return delivery?.state === 'delivered'
    }, 5000, 'the delivery to be recorded')
    const table = await run(['webhooks', 'deliveries', '--database', database])
    assert.match(table.stdout, /9007199254740993\s+http:\/\/127\.0\.0\.1:\d+\/hook\s+delivered/)
  })
})
