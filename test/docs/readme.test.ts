import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { cleanEnv, executable, workdir } from '../executable.js'

/**
 * The documentation runs itself: every ```sh block of a page, in order, as one shell session against a
 * `plantstore serve` started for that page alone, in a fresh folder, exactly as the page says to start
 * it; each command's output compared with the `# ` lines right under it (`…` matches anything). Blocks
 * that only illustrate are fenced ```shell. Each page with a ```sh block is here, with the flags it
 * names first (the README's: none, as its first screen).
 */
const PAGES: Record<string, string[]> = {
  'README.md': [],
  'docs/webhooks.md': ['--webhook-allow-private'],
  'docs/moving-data.md': []
}
const root = fileURLToPath(new URL('../../', import.meta.url))
// The port the pages name: the default of `plantstore serve`.
const PORT = 8080

// Ends each command's output: a line no command prints, the command's number and its exit status.
const MARKER = /^@@readme-test@@ (\d+) (\d+)$/

interface Command { page: string, line: number, text: string, expected: string[] }

/** The commands of a page's ```sh blocks: a line (and its `\` continuations), then its expected output. */
function commandsOf (page: string): Command[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n')
  const commands: Command[] = []
  let inBlock = false
  let current: Command | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith('```')) {
      inBlock = !inBlock && line.trim() === '```sh'
      current = undefined
      continue
    }
    if (!inBlock) continue
    if (line.trim() === '') {
      current = undefined
    } else if (line.startsWith('#')) {
      // A comment right under a command is its output; anywhere else it explains.
      if (current !== undefined) current.expected.push(line.replace(/^# ?/, ''))
    } else {
      let text = line
      while (text.endsWith('\\') && i + 1 < lines.length) text += `\n${lines[++i]!}`
      current = { page, line: i + 1, text, expected: [] }
      commands.push(current)
    }
  }
  return commands
}

/** Whether each expected line stands, in order, among the output's lines. */
function matches (expected: string[], output: string[]): boolean {
  let at = 0
  for (const line of expected) {
    const pattern = new RegExp(`^${line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`)
    while (at < output.length && !pattern.test(output[at]!)) at++
    if (at === output.length) return false
    at++
  }
  return true
}

/** Whether nothing listens on 127.0.0.1:port now. */
function portIsFree (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

function freePort (): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** `plantstore serve` (with `flags`) in `dir`, with the environment a reader's shell has: no PLANTSTORE_* setting. */
function startAsDocumented (dir: string, bin: string, flags: string[]) {
  const env = { ...cleanEnv, PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}` }
  const child = spawn('plantstore', ['serve', ...flags], { cwd: dir, env })
  let stdout = ''
  child.stdout.on('data', (chunk) => { stdout += chunk })
  child.stderr.on('data', (chunk) => { stdout += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return new Promise<{ stop: () => Promise<unknown> }>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes(`Server listening at http://127.0.0.1:${PORT}`)) {
        resolve({ stop: () => { child.kill('SIGTERM'); return exited } })
      }
    })
    exited.then((code) => reject(new Error(`plantstore serve exited ${code}: ${stdout}`)))
  })
}

for (const [page, flags] of Object.entries(PAGES)) {
  test(`every shell block of ${page} gives the output it shows, on a server started as it says`, { timeout: 120_000 }, async (t) => {
    assert.ok(await portIsFree(PORT), `127.0.0.1:${PORT} is taken: the pages' server listens there (plantstore serve's default)`)
    const dir = join(workdir, `docs-${page.replace(/\W/g, '-')}`)
    const bin = join(dir, 'bin')
    mkdirSync(bin, { recursive: true })
    // `plantstore` on PATH as `npm link` puts it there, and the examples where a checkout has them.
    symlinkSync(executable, join(bin, 'plantstore'))
    symlinkSync(join(root, 'examples'), join(dir, 'examples'))
    if (flags.length > 0) assert.ok(readFileSync(join(root, page), 'utf8').includes(`plantstore serve ${flags.join(' ')}`), `${page} names how its server starts`)
    const server = await startAsDocumented(dir, bin, flags)
    t.after(() => server.stop())
    const receiverPort = await freePort()
    const commands = commandsOf(page)
    assert.ok(commands.length > 5, `only ${commands.length} commands found`)
    const address = (text: string) => text.replaceAll('127.0.0.1:9000', `127.0.0.1:${receiverPort}`).replaceAll('PORT=9000', `PORT=${receiverPort}`)
    const script = commands.map((command, i) => `{\n${address(command.text)}\n} 2>&1\nprintf '\\n@@readme-test@@ %d %d\\n' ${i} $?`).join('\n') +
      '\nkill $(jobs -p) 2>/dev/null; wait\n'
    const env: NodeJS.ProcessEnv = { ...cleanEnv, PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}` }
    const output = await new Promise<string>((resolve, reject) => {
      execFile('bash', ['-c', script], { cwd: dir, env, timeout: 90_000, maxBuffer: 1 << 24 }, (error, stdout) => {
        if (error !== null && error.killed) reject(new Error(`the blocks did not finish: ${stdout}`))
        else resolve(stdout)
      })
    })
    await server.stop()

    const results = new Map<number, { status: number, lines: string[] }>()
    let lines: string[] = []
    for (const raw of output.split('\n')) {
      const marker = MARKER.exec(raw)
      if (marker === null) {
        const line = raw.trim()
        if (line !== '') lines.push(line)
        continue
      }
      results.set(Number(marker[1]), { status: Number(marker[2]), lines })
      lines = []
    }
    const failures: string[] = []
    for (const [i, command] of commands.entries()) {
      const result = results.get(i)
      const where = `${command.page}:${command.line}: ${command.text}`
      if (result === undefined) failures.push(`${where} did not run`)
      else if (result.status !== 0) failures.push(`${where} exited ${result.status}:\n${result.lines.join('\n')}`)
      else if (!matches(command.expected.map(address), result.lines)) failures.push(`${where}\nshows:\n${command.expected.join('\n')}\nanswered:\n${result.lines.join('\n')}`)
    }
    assert.deepEqual(failures, [], failures.join('\n\n'))
  })
}

test('every page with a shell block that runs is run above; the rest only illustrate (```shell)', () => {
  const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
  const runnable = pages.filter((page) => readFileSync(join(root, page), 'utf8').split('\n').some((line) => line.trim() === '```sh'))
  assert.deepEqual(runnable.sort(), Object.keys(PAGES).sort())
})
