import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from '../receiver.js'
import { openStream } from '../sse.js'
import { answering, containerRuntimeMissing, podman, podmanEnv, podmanOk, run, startService, stream } from './podman.js'
import { buildStandIns } from './stand-ins.js'

// The Dockerfile and compose.yaml, built and run with podman on stand-ins for the official base images.
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const IMAGE = 'localhost/plantstore:test'
const TEST_LABEL = 'org.plantstore.test-image'
const suffix = randomBytes(4).toString('hex')
const container = (role: string) => `plantstore-test-${suffix}-${role}`
const volume = `plantstore-test-${suffix}-data`
const project = `plantstoretest${suffix}`
const work = mkdtempSync(join(tmpdir(), 'plantstore-containers-'))
const log = (line: string) => process.stderr.write(`# containers: ${line}\n`)
const secret = join(work, 'postgres-password.txt')
writeFileSync(secret, randomBytes(18).toString('base64url'))
// Readable by the containers' own users (postgres, node): a bind mount keeps the file's owner and mode.
chmodSync(secret, 0o644)

const missing = await containerRuntimeMissing()
if (missing !== undefined) log(`skipped: ${missing}`)

const start = (name: string) => startService(name, IMAGE, volume)

const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })

describe('the container image and compose.yaml', { skip: missing === undefined ? false : `containers: ${missing}` }, () => {
  after(async () => {
    // Everything this run made, by name, whatever the result; the images stay, as the next build's cache.
    await podman(['rm', '--force', '--time', '0', ...['first', 'second', 'third'].map(container)])
    await run('podman-compose', ['-p', project, '-f', join(ROOT, 'compose.yaml'), 'down', '--volumes'], { cwd: work, env: composeEnv(0, 0) })
    await podman(['rm', '--force', '--time', '0', ...['postgres', 'migrate', 'plantstore-1', 'plantstore-2'].map((service) => `${project}_${service}_1`)])
    await podman(['volume', 'rm', '--force', volume, `${project}_postgres-data`])
    await podman(['network', 'rm', '--force', `${project}_default`])
    // Only this test's own images left dangling by a newer build or stand-in, never anyone else's.
    for (const label of [TEST_LABEL, 'org.plantstore.stand-in']) await podman(['image', 'prune', '--force', '--filter', `label=${label}`])
    rmSync(work, { recursive: true, force: true })
  })

  before(async () => {
    const standIns = await buildStandIns(log)
    log(`Node ${standIns.nodeVersion} with npm ${standIns.npmVersion}; ${standIns.postgresVersion}`)
    const started = Date.now()
    // The build stage tagged too, so that pruning dangling images keeps its layers for the next build.
    const build = ['build', '--pull=never', '--network', 'host', '--format', 'docker', '--label', `${TEST_LABEL}=true`, ROOT]
    await stream('podman', [...build.slice(0, -1), '--target', 'build', '--tag', `${IMAGE}-build`, ROOT])
    await stream('podman', [...build.slice(0, -1), '--tag', IMAGE, ROOT])
    log(`image built in ${Math.round((Date.now() - started) / 1000)} s`)
  })

  test('the image adds at most 100 MB to its base, and holds no build tools, store or npm credentials', async () => {
    const [image, base] = (await podmanOk(['image', 'inspect', '--format', '{{.Size}}', IMAGE, 'docker.io/library/node:24-bookworm-slim'])).trim().split('\n').map(Number)
    const added = (image! - base!) / 1e6
    log(`the image adds ${added.toFixed(1)} MB to node:24-bookworm-slim`)
    assert.ok(added <= 100, `${added} MB`)
    const found = await podmanOk(['run', '--rm', '--network', 'none', '--entrypoint', 'sh', IMAGE, '-c',
      'for tool in gcc g++ cc make python3 node-gyp; do command -v "$tool"; done; find / -xdev \\( -name .npmrc -o -name first-token -o -name "*.db" -o -name .env \\) -print 2>/dev/null; ls /app'])
    assert.deepEqual(found.trim().split('\n'), ['bin', 'dist', 'node_modules', 'openapi', 'package.json'])
  })

  test('serves on 8080 as uid 1000 with a read-only root, gives its first token in /data, and keeps plants across a new container', async () => {
    const started = Date.now()
    const url = await start(container('first'))
    log(`podman run to /readyz answering: ${Date.now() - started} ms`)
    const status = await podmanOk(['exec', container('first'), 'cat', '/proc/1/status'])
    assert.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m, 'the service runs as node, not root')
    assert.match(await podmanOk(['exec', container('first'), 'cat', '/proc/1/cmdline']), /^node\0/)
    const write = await podman(['exec', container('first'), 'touch', '/app/x'])
    assert.match(write.stderr, /Read-only file system/)

    const firstToken = /ps_[A-Za-z0-9_-]{43}/.exec(await podmanOk(['exec', container('first'), 'cat', '/data/first-token']))?.[0]
    assert.ok(firstToken !== undefined)
    const created = await fetch(`${url}/plants`, { method: 'POST', headers: headers(firstToken), body: '{"id": 9007199254740993, "name": "Monstera", "tag": "tropical"}' })
    assert.equal(created.status, 200)
    const read = await fetch(`${url}/plants/9007199254740993`, { headers: headers(firstToken) })
    assert.equal(await read.text(), '{"name":"Monstera","id":9007199254740993,"tag":"tropical"}')

    await podmanOk(['rm', '--force', container('first')])
    const again = await start(container('second'))
    const kept = await fetch(`${again}/plants/9007199254740993`, { headers: headers(firstToken) })
    assert.equal(kept.status, 200, 'the plant survived podman rm -f')
    const health = await podman(['healthcheck', 'run', container('second')])
    assert.equal(health.code, 0, `the image's HEALTHCHECK: ${health.stdout}${health.stderr}`)
  })

  test('SIGTERM under load: every acknowledged plant is kept, and the container exits 0', async () => {
    const url = `http://${(await podmanOk(['port', container('second'), '8080/tcp'])).trim().split('\n')[0]}`
    const token = (await podmanOk(['exec', container('second'), 'plantstore', 'tokens', 'create', '--name', 'load'])).trim()
    const acknowledged: number[] = []
    let next = 1000
    let stopping: Promise<unknown> | undefined
    // Eight writers until the server stops answering; SIGTERM once 200 plants are acknowledged.
    const writer = async () => {
      for (;;) {
        const id = next++
        const res = await fetch(`${url}/plants`, { method: 'POST', headers: headers(token), body: JSON.stringify({ id, name: `p${id}` }) }).catch(() => undefined)
        if (res === undefined) return
        await res.arrayBuffer()
        if (res.status === 200) acknowledged.push(id)
        else if (res.status !== 503) throw new Error(`plant ${id}: ${res.status}`)
        if (acknowledged.length >= 200 && stopping === undefined) stopping = podmanOk(['stop', '--time', '30', container('second')])
        if (res.status === 503 || next > 20_000) return
      }
    }
    await Promise.all(Array.from({ length: 8 }, writer))
    await stopping
    log(`SIGTERM after ${acknowledged.length} acknowledged creates`)
    assert.ok(acknowledged.length >= 200, `${acknowledged.length} acknowledged`)
    assert.equal((await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', container('second')])).trim(), '0')

    const again = await start(container('third'))
    const missingIds = []
    for (const id of acknowledged) {
      const res = await fetch(`${again}/plants/${id}`, { headers: headers(token) })
      if (res.status !== 200) missingIds.push(id)
    }
    assert.deepEqual(missingIds, [], `of ${acknowledged.length} acknowledged plants`)
  })

  test('compose: PostgreSQL, a one-shot migrate and two instances, each seeing the other\'s plants and events', async () => {
    const [one, two] = [await freePort(), await freePort()]
    const started = Date.now()
    await stream('podman-compose', ['-p', project, '-f', join(ROOT, 'compose.yaml'), 'up', '--detach'], { cwd: work, env: composeEnv(one, two) })
    const [first, second] = [`http://127.0.0.1:${one}`, `http://127.0.0.1:${two}`]
    await Promise.all([answering(`${first}/readyz`, 120_000), answering(`${second}/readyz`, 120_000)])
    log(`compose up to both instances ready: ${Date.now() - started} ms`)
    // podman-compose 1.0 starts a service without waiting for its depends_on condition (restart: on-failure
    // retries migrate until PostgreSQL answers), and serve migrates at start too, so both instances can answer
    // before the one-shot migrate has exited 0: wait for it.
    let migrate = ''
    await waitFor(async () => {
      migrate = (await podmanOk(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', `${project}_migrate_1`])).trim()
      return migrate === 'exited 0'
    }, 60_000, 'the one-shot migrate to exit 0').catch((error: Error) => { throw new Error(`${error.message}; last state: ${migrate}`) })
    for (const service of ['postgres', 'plantstore-1', 'plantstore-2']) {
      await waitFor(async () => (await podman(['healthcheck', 'run', `${project}_${service}_1`])).code === 0, 60_000, `${service} healthy`)
    }

    // The CLI in the container reaches PostgreSQL with the password from the secret file.
    const token = (await podmanOk(['exec', `${project}_plantstore-1_1`, 'plantstore', 'tokens', 'create', '--name', 'compose'])).trim()
    const events = await openStream(`${second}/events`, { authorization: `Bearer ${token}` })
    try {
      assert.equal(events.response.status, 200)
      const created = await fetch(`${first}/plants`, { method: 'POST', headers: headers(token), body: '{"id": 42, "name": "Aloe"}' })
      assert.equal(created.status, 200)
      const read = await fetch(`${second}/plants/42`, { headers: headers(token) })
      assert.equal(await read.text(), '{"name":"Aloe","id":42}')
      await events.until((list) => list.some((event) => event.event === 'plant.created' && event.data === '{"name":"Aloe","id":42}'), 10_000)
    } finally {
      await events.close()
    }
  })
})

/** compose.yaml's variables: the image just built, this run's password file, and the two published ports. */
function composeEnv (one: number, two: number): NodeJS.ProcessEnv {
  return {
    ...podmanEnv,
    PLANTSTORE_IMAGE: IMAGE,
    PLANTSTORE_POSTGRES_PASSWORD_FILE: secret,
    PLANTSTORE_PORT_1: String(one),
    PLANTSTORE_PORT_2: String(two)
  }
}
