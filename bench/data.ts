/**
 * npm run bench:data [-- --quick]: the moving-data commands at 200 000 plants (20 000 with --quick),
 * as a user runs them (the built executable, a new process each), median of three runs:
 * - import into SQLite, durable (a commit with fsync per batch of 5 000),
 * - export from SQLite, and its peak RSS at 1 000 000 plants,
 * - copy SQLite → PostgreSQL (when PLANTSTORE_TEST_POSTGRES_URL is set),
 * - the CLI's own start-up (tokens list on an empty store, --version).
 * Rates are "past the command's own start-up": (time at N plants − time on an empty store) / N.
 * Writes bench/results/data.md and the table in bench/README.md (not with --quick).
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { freshDatabase } from '../test/databases.js'
import { median } from './report.js'
import { rssMiB } from './process-stats.js'
import { cli, NODE_FLAGS } from './servers.js'
import { writeResults } from './results.js'

const quick = process.argv.includes('--quick')
const N = quick ? 20_000 : 200_000
const BIG = quick ? 100_000 : 1_000_000
const dir = mkdtempSync(join(tmpdir(), 'plantstore-data-bench-'))

/** Runs the CLI, answering its wall time in seconds and its peak RSS in MiB. */
function timed (args: string[], output?: string): Promise<{ seconds: number, peakRssMiB: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const quiet = ['import', 'export', 'copy', 'backup'].includes(args[0]!) ? ['--quiet'] : []
    const child = spawn(process.execPath, [...NODE_FLAGS, cli, ...args, ...quiet], { stdio: ['ignore', output === undefined ? 'ignore' : 'pipe', 'inherit'] })
    if (output !== undefined) child.stdout!.resume()
    let peak = 0
    const sampler = setInterval(() => { try { peak = Math.max(peak, rssMiB(child.pid!)) } catch {} }, 20)
    child.on('exit', (code) => {
      clearInterval(sampler)
      if (code !== 0) reject(new Error(`plantstore ${args.join(' ')} exited ${code}`))
      else resolve({ seconds: (performance.now() - started) / 1000, peakRssMiB: Math.round(peak) })
    })
  })
}

function plantsFile (count: number, name: string): string {
  const path = join(dir, name)
  let text = ''
  for (let i = 0; i < count; i++) text += `{"name":"Plant number ${i}","id":${i * 7 + 1}${i % 3 === 0 ? '' : `,"tag":"${i % 2 === 0 ? 'even' : 'odd'}"`}}\n`
  writeFileSync(path, text)
  return path
}

/** Plants whose ids come in random order over the whole int64 range, as an export from another system may. */
function randomOrderFile (count: number, name: string): string {
  const ids = new Set<bigint>()
  while (ids.size < count) ids.add(randomBytes(8).readBigInt64BE())
  const path = join(dir, name)
  let text = ''
  let i = 0
  for (const id of ids) text += `{"name":"Plant number ${i}","id":${id}${i++ % 3 === 0 ? '' : ',"tag":"odd"'}}\n`
  writeFileSync(path, text)
  return path
}

let stores = 0
/** A new, migrated SQLite store: only serve and migrate create one. */
function sqlite () {
  const url = `sqlite:${join(dir, `store-${++stores}.db`)}`
  execFileSync(process.execPath, [cli, 'migrate', '--database', url])
  return url
}

async function rate (label: string, count: number, runOnce: (size: 'empty' | 'full') => Promise<{ seconds: number }>) {
  const samples: number[] = []
  for (let round = 0; round < 3; round++) {
    const empty = await runOnce('empty')
    const full = await runOnce('full')
    samples.push(count / Math.max(full.seconds - empty.seconds, 1e-6))
    process.stderr.write(`${label}: ${Math.round(samples.at(-1)!)} plants/s (${full.seconds.toFixed(2)} s, empty ${empty.seconds.toFixed(2)} s)\n`)
  }
  return Math.round(median(samples))
}

async function main () {
  const empty = plantsFile(0, 'empty.ndjson')
  const full = plantsFile(N, 'plants.ndjson')
  const rows: Array<[string, string]> = []

  rows.push([`import into SQLite, ${N.toLocaleString('en')} plants, durable`, `${(await rate('import', N, (size) =>
    timed(['import', size === 'empty' ? empty : full, '--database', sqlite()]))).toLocaleString('en')} plants/s`])

  const shuffled = randomOrderFile(N, 'random-order.ndjson')
  rows.push([`import into SQLite, ${N.toLocaleString('en')} plants, ids in random order over int64, durable`, `${(await rate('import random', N, (size) =>
    timed(['import', size === 'empty' ? empty : shuffled, '--database', sqlite()]))).toLocaleString('en')} plants/s`])

  const source = sqlite()
  await timed(['import', full, '--database', source])
  const emptySource = sqlite()
  await timed(['import', empty, '--database', emptySource])
  rows.push([`export from SQLite, ${N.toLocaleString('en')} plants`, `${(await rate('export', N, (size) =>
    timed(['export', '--database', size === 'empty' ? emptySource : source], 'stdout'))).toLocaleString('en')} plants/s`])

  const big = sqlite()
  await timed(['import', plantsFile(BIG, 'big.ndjson'), '--database', big])
  const bigExport = await timed(['export', '--database', big], 'stdout')
  rows.push([`export from SQLite, ${BIG.toLocaleString('en')} plants: peak RSS`, `${bigExport.peakRssMiB} MiB (${Math.round(BIG / bigExport.seconds).toLocaleString('en')} plants/s with start-up)`])

  if (process.env.PLANTSTORE_TEST_POSTGRES_URL !== undefined) {
    rows.push([`copy SQLite → PostgreSQL, ${N.toLocaleString('en')} plants`, `${(await rate('copy', N, async (size) =>
      timed(['copy', '--from', size === 'empty' ? emptySource : source, '--to', await freshDatabase('postgres:fresh')]))).toLocaleString('en')} plants/s`])
  }

  const starts: number[] = []
  const versions: number[] = []
  const blank = sqlite()
  for (let i = 0; i < 5; i++) {
    starts.push((await timed(['tokens', 'list', '--database', blank])).seconds)
    versions.push((await timed(['--version'])).seconds)
  }
  rows.push(['plantstore tokens list, empty store (start-up)', `${median(starts).toFixed(3)} s`])
  rows.push(['plantstore --version', `${median(versions).toFixed(3)} s`])

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  const markdown = `Moving data${quick ? ' (--quick)' : ''}, median of 3 runs; ${new Date().toISOString().slice(0, 10)} on ${machine}.\n\n` +
    '| command | result |\n|---|---|\n' + rows.map(([what, result]) => `| ${what} | ${result} |`).join('\n') + '\n'
  if (!quick) writeResults('data', markdown)
  process.stdout.write(markdown)
}

try {
  await main()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
