import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createPlant, newDatabase, run, serve, stop } from '../executable.js'

// On Node 24 a native addon's objects freed while the SQLite writer thread exits used to abort the
// process (SIGABRT instead of exit 0) in most runs: one clean stop proves little, ten in a row do.
test('serve, one create, SIGTERM: exit code 0 ten times in a row, every plant and log line kept', { timeout: 120_000 }, async () => {
  const database = newDatabase()
  const token = (await run(['tokens', 'create', '--name', 'stops', '--database', database])).stdout.trim()
  for (let round = 1; round <= 10; round++) {
    const server = await serve(database)
    const created = await createPlant(server.url, token, { id: round, name: `Fern ${round}` })
    assert.equal(created.status, 200)
    for (let id = 1; id <= round; id++) {
      const read = await fetch(`${server.url}/plants/${id}`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(read.status, 200, `round ${round}: plant ${id} survived the earlier stops`)
      await read.arrayBuffer()
    }
    const code = await stop(server)
    // A signal death (SIGABRT) leaves no exit code at all: null, not 0.
    assert.equal(code, 0, `round ${round}: exit code ${code}; stderr: ${server.stderr()}`)
    // The log is buffered: whatever was still gathered is written at exit, one access line per request.
    if (!server.child.stdout.closed) await new Promise((resolve) => server.child.stdout.once('close', resolve))
    const accessLines = server.stdout().match(/"msg":"request completed"/g) ?? []
    assert.equal(accessLines.length, 1 + round, `round ${round}: every request's access line`)
  }
})
