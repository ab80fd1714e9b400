import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { executable, serveIn, workdir } from '../executable.js'

/**
 * The documentation runs itself: every ```sh block of these pages, in this order, as one shell session
 * against a freshly started `plantstore serve`, each command's output compared with the `# ` lines
 * right under it (`…` matches anything). Blocks that only illustrate are fenced ```shell.
 */
const PAGES = ['README.md', 'docs/webhooks.md', 'docs/moving-data.md']
const root = fileURLToPath(new URL('../../', import.meta.url))

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

function freePort (): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

test('every shell block of the README and the runnable docs gives the output it shows', { timeout: 120_000 }, async () => {
  const dir = join(workdir, 'readme')
  const bin = join(dir, 'bin')
  mkdirSync(bin, { recursive: true })
  // `plantstore` on PATH as `npm link` puts it there, and the examples where a checkout has them.
  symlinkSync(executable, join(bin, 'plantstore'))
  symlinkSync(join(root, 'examples'), join(dir, 'examples'))
  const server = await serveIn(dir, ['--webhook-allow-private'])
  const receiverPort = await freePort()
  const commands = PAGES.flatMap(commandsOf)
  assert.ok(commands.length > 40, `only ${commands.length} commands found`)
  // The pages' addresses, as this run has them.
  const address = (text: string) => text.replaceAll('127.0.0.1:8080', server.url.slice('http://'.length))
    .replaceAll('127.0.0.1:9000', `127.0.0.1:${receiverPort}`).replaceAll('PORT=9000', `PORT=${receiverPort}`)
  const script = commands.map((command, i) => `{\n${address(command.text)}\n} 2>&1\nprintf '\\n@@readme-test@@ %d %d\\n' ${i} $?`).join('\n') +
    '\nkill $(jobs -p) 2>/dev/null; wait\n'
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PLANTSTORE_')))
  env.PATH = `${bin}:${dirname(process.execPath)}:${process.env.PATH}`
  const output = await new Promise<string>((resolve, reject) => {
    execFile('bash', ['-c', script], { cwd: dir, env, timeout: 90_000, maxBuffer: 1 << 24 }, (error, stdout) => {
      if (error !== null && error.killed) reject(new Error(`the blocks did not finish: ${stdout}`))
      else resolve(stdout)
    })
  })
  server.child.kill('SIGTERM')
  await server.exited

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
