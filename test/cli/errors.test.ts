import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { executable, newDatabase, run, workdir } from '../executable.js'

/** A failure as docs/errors.md promises it: one line on stderr, naming what is wrong, no errno text alone, no stack. */
function assertOneLine ({ code, stderr }: { code: number, stderr: string }, exitCode: number, names: RegExp, what: string) {
  assert.equal(code, exitCode, `${what}: exit ${code}, ${stderr}`)
  assert.match(stderr, /^plantstore: [^\n]+\n$/, `${what}: one line, ${JSON.stringify(stderr)}`)
  assert.match(stderr, names, what)
  assert.doesNotMatch(stderr, /\b(ENOENT|EEXIST|ENOTDIR|EACCES)\b|^\s+at /m, what)
}

describe('every command line failure is one clear line, exit 2 for usage, 1 at run time', () => {
  test('a bad flag is named, on every command', async () => {
    const database = newDatabase()
    for (const args of [['serve'], ['migrate'], ['tokens', 'create'], ['tokens', 'list'], ['tokens', 'revoke', 'x'], ['webhooks', 'add', 'http://a.example'],
      ['webhooks', 'list'], ['webhooks', 'remove', '1'], ['webhooks', 'deliveries'], ['export'], ['import', '-'], ['copy', '--from', database, '--to', database], ['backup', 'x.db']]) {
      assertOneLine(await run([...args, '--bogus', '--database', database]), 2, /unknown option '--bogus'/, args.join(' '))
    }
    assertOneLine(await run(['bogus']), 2, /unknown command 'bogus'/, 'an unknown command')
    assertOneLine(await run(['tokens', 'create', '--database', database]), 2, /--name/, 'a required option missing')
    assertOneLine(await run(['webhooks', 'deliveries', '--limit', 'x', '--database', database]), 2, /--limit x/, 'a bad value')
  })

  test('--help exits 0 on every command, and shows each default once', async () => {
    for (const args of [[], ['serve'], ['migrate'], ['tokens'], ['tokens', 'create'], ['webhooks', 'deliveries'], ['export'], ['import'], ['copy'], ['backup']]) {
      const help = await run([...args, '--help'])
      assert.equal(help.code, 0, `${args.join(' ')} --help: ${help.stderr}`)
      assert.match(help.stdout, /^Usage: plantstore/)
      assert.doesNotMatch(help.stdout, /\(default[^)]*\)\s*\(default/, 'a default is shown once')
    }
  })

  test('a command that reads a store never creates one: no store at PATH, exit 2, nothing made', async () => {
    const missing = join(workdir, 'typo', 'x.db')
    for (const args of [['export'], ['tokens', 'list'], ['tokens', 'create', '--name', 'a'], ['webhooks', 'list'], ['backup', join(workdir, 'b.db')], ['import', '-']]) {
      assertOneLine(await run([...args, '--database', `sqlite:${missing}`]), 2, /^plantstore: no store at .*typo\/x\.db \(serve or migrate creates one\)$/m, args.join(' '))
    }
    assertOneLine(await run(['copy', '--from', `sqlite:${missing}`, '--to', `sqlite:${join(workdir, 'copy-target.db')}`]), 2, /no store at/, 'copy --from')
    assert.equal(existsSync(join(workdir, 'typo')), false, 'no folder was made')
    assert.equal(existsSync(join(workdir, 'copy-target.db')), false, 'no target was made before the source was found')
  })

  test('bad paths and URLs are named, passwords masked', async () => {
    const database = newDatabase()
    assertOneLine(await run(['serve', '--port', '0', '--database', 'sqlite:/etc/passwd/x.db']), 2, /\/etc\/passwd: a file stands where a folder is needed/, 'serve on a file for a folder')
    assertOneLine(await run(['export', '--output', '/nonexistent/x', '--database', database]), 1, /\/nonexistent\/x: no such file or folder/, 'export to a missing folder')
    assertOneLine(await run(['backup', '/no/dir/x.db', '--database', database]), 2, /\/no\/dir\/x\.db: the folder \/no\/dir does not exist/, 'backup to a missing folder')
    assertOneLine(await run(['import', join(workdir, 'nothing.ndjson'), '--database', database]), 2, /nothing\.ndjson: no such file/, 'import of a missing file')
    assertOneLine(await run(['export', '--database', 'mysql://x']), 2, /--database .*expected sqlite:PATH/, 'a URL of another kind')
    const unreachable = await run(['tokens', 'list', '--database', 'postgres://plantstore:hunter2@127.0.0.1:1/x'])
    assertOneLine(unreachable, 1, /connection refused/, 'an unreachable PostgreSQL')
    assert.doesNotMatch(unreachable.stderr, /hunter2/)
    const copy = await run(['copy', '--from', database, '--to', 'postgres://plantstore:hunter2@127.0.0.1:1/x'])
    assertOneLine(copy, 1, /--to/, 'copy to an unreachable PostgreSQL names --to')
    assert.doesNotMatch(copy.stderr, /hunter2/)
    assertOneLine(await run(['serve', '--port', '99999']), 2, /--port \(PLANTSTORE_PORT\) "99999"/, 'a bad port')
  })

  test('summary rates are the count over the seconds printed', async () => {
    const database = newDatabase()
    const file = join(workdir, 'rates.ndjson')
    await import('node:fs').then(({ writeFileSync }) => writeFileSync(file, Array.from({ length: 500 }, (_, i) => `{"id":${i},"name":"p"}`).join('\n')))
    for (const result of [await run(['import', file, '--database', database]), await run(['backup', join(workdir, 'rates-backup.db'), '--database', database])]) {
      const [, count, seconds, rate] = /^(?:imported|backed up) (\d+) .* in ([\d.]+) s \(([\d,]+)\/s\)$/m.exec(result.stderr) ?? []
      assert.ok(count !== undefined, result.stderr)
      assert.equal(Number(rate!.replaceAll(',', '')), Math.round(Number(count) / Number(seconds)), result.stderr)
    }
  })
})

describe('an unsupported Node', () => {
  test('plantstore says which Node it needs, in one line, exit 1, before loading anything', async () => {
    // Node 22 and 24 run the tests; an older one is the machine's own where it has one, else pretended.
    const pretend = ['--import', 'data:text/javascript,Object.defineProperty(process.versions,\'node\',{value:\'20.19.0\'})']
    const old = await new Promise<{ code: number, stderr: string }>((resolve) => execFile(process.execPath, [...pretend, executable, '--version'],
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : error.code as number, stderr })))
    assert.deepEqual(old, { code: 1, stderr: 'plantstore needs Node.js 22 or later; this is 20.19.0\n' })
    const system = '/usr/bin/node'
    if (existsSync(system)) {
      const real = await new Promise<{ code: number, stdout: string, stderr: string }>((resolve) => execFile(system, [executable, 'serve', '--port', '0'],
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : error.code as number, stdout, stderr })))
      const version = await new Promise<string>((resolve) => execFile(system, ['-p', 'process.versions.node'], (_error, stdout) => resolve(stdout.trim())))
      if (Number(version.split('.')[0]) < 22) assert.deepEqual(real, { code: 1, stdout: '', stderr: `plantstore needs Node.js 22 or later; this is ${version}\n` })
    }
  })

  test('npm ci refuses an older Node before installing anything (engine-strict)', () => {
    const npmrc = readFileSync(new URL('../../.npmrc', import.meta.url), 'utf8')
    assert.match(npmrc, /^engine-strict=true$/m)
    const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
    assert.equal(engines.node, '>=22')
  })
})
