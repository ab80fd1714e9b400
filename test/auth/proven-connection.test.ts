import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { Client } from 'undici'
import { parseDatabaseUrl } from '../../src/config/config.js'
import { openStore } from '../../src/store/open-store.js'
import { build, createToken, DATABASES, freshDatabase } from '../helper.js'

const folder = mkdtempSync(join(tmpdir(), 'plantstore-proven-'))
after(() => rmSync(folder, { recursive: true, force: true }))

// One keep-alive connection may carry many callers (behind a proxy): each request is authenticated on
// its own, so a token proven earlier on the connection never lets a revoked token or a guess through.
for (const [db, url] of Object.entries(DATABASES)) {
  test(`on ${db}: one keep-alive connection, several tokens; a revocation here or by another connection holds on it`, async (t) => {
    // SQLite in a file, so that a second connection (as the CLI or another process) can revoke.
    const database = url.startsWith('sqlite') ? `sqlite:${join(folder, 'plants.db')}` : await freshDatabase(url)
    const app = await build(t, { database })
    let connections = 0
    app.server.on('connection', () => { connections++ })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    const client = new Client(`http://127.0.0.1:${port}`)
    t.after(() => client.close())
    const status = async (token: string) => {
      const answer = await client.request({ method: 'GET', path: '/plants/1', headers: { authorization: `Bearer ${token}` } })
      await answer.body.dump()
      return answer.statusCode
    }
    // 404: authenticated, and the plant is not there.
    const [first, second, third] = [await createToken(app, { name: 'first' }), await createToken(app, { name: 'second' }), await createToken(app, { name: 'third' })]
    assert.equal(await status(first), 404)
    assert.equal(await status(first), 404, 'the same token again on the same connection')
    assert.equal(await status(second), 404, 'another caller on the same connection (as behind a proxy)')
    assert.equal(await status(`${second.slice(0, -1)}${second.endsWith('A') ? 'B' : 'A'}`), 401, 'one character off the proven token')
    assert.equal(await status(first), 404)

    await app.store.tokens.revokeByName('first')
    assert.equal(await status(first), 401, 'revoked through this process: refused on the next request')
    assert.equal(await status(second), 404)

    assert.equal(await status(third), 404)
    const other = await openStore(parseDatabaseUrl(database))
    t.after(() => other.close())
    await other.tokens.revokeByName('third')
    const revokedAt = Date.now()
    while (await status(third) === 404) {
      assert.ok(Date.now() - revokedAt < 1000, 'revoked by another connection: refused within a second')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(await status(third), 401)
    assert.equal(connections, 1, 'every request went over the one connection')
  })
}
