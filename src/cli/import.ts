import { isUtf8 } from 'node:buffer'
import { createReadStream, statSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { firstNonUtf8Byte, startsWithBom } from '../contract/exact-json.js'
import type { ConflictMode, ImportResult, Plant, Store } from '../store/store.js'
import type { ParsedLines } from './import-lines.js'
import { ParserThread } from './import-parser-thread.js'
import { withStore } from './store-access.js'
import { counted, Progress } from './progress.js'
import { InputError, UsageError } from './command-errors.js'

interface Options { onConflict: ConflictMode, notify?: boolean, batchSize: string, database?: string, databasePasswordFile?: string, quiet?: boolean }
/** A chunk of input handed to the parser thread: its answer to come, and the chunk's size. */
interface Ahead { parsed: Promise<ParsedLines>, bytes: number }

/** Input handed to the parser thread and not yet stored: enough to keep it busy through a batch's commit. */
const AHEAD_BYTES = 8 << 20

/**
 * plantstore import: each line validated as a create body (the API's own validator and int64 parsing),
 * stored in batches, each committed durably. The first bad line or (with --on-conflict fail) conflict
 * stops it with its line number, everything before it committed: a rerun after the fix finishes the
 * job, identical plants being skipped. Lines are parsed on a thread of their own (ParserThread), the
 * next ones while a batch is stored.
 */
export async function runImport (file: string, options: Options) {
  const batchSize = Number(options.batchSize)
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    throw new UsageError(`invalid --batch-size ${options.batchSize}: expected an integer from 1 to 100000`)
  }
  let size: number | undefined
  if (file !== '-') {
    let stats
    try {
      stats = statSync(file)
    } catch {
      throw new UsageError(`cannot read ${file}: no such file`)
    }
    if (stats.isDirectory()) throw new UsageError(`cannot read ${file}: it is a folder`)
    size = stats.size
  }
  const input: Readable = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 })
  // Started before the store opens, so that the thread loads the validator meanwhile.
  const parser = new ParserThread()
  try {
    await withStore(options, (store) => importLines(input, parser, store, { ...options, batchSize, size }))
  } finally {
    if (file !== '-') input.destroy()
    await parser.close()
  }
}

async function importLines (input: Readable, parser: ParserThread, store: Store, options: Omit<Options, 'batchSize'> & { batchSize: number, size?: number }) {
  const { batchSize, size } = options
  let bytes = 0
  const progress = new Progress('imported', { quiet: options.quiet, total: size === undefined ? undefined : () => bytes / size })
  const totals: Required<Omit<ImportResult, 'conflictAt'>> = { created: 0, identical: 0, kept: 0, replaced: 0 }
  // A batch is consecutive lines (the first bad one ends the import), so its first line's number
  // gives every plant's.
  let batch: Plant[] = []
  let batchFirstLine = 1
  let lines = 0

  const flush = async () => {
    if (batch.length === 0) return
    const result = await store.bulk.importPlants(batch, { onConflict: options.onConflict, notify: options.notify === true })
    for (const key of ['created', 'identical', 'kept', 'replaced'] as const) totals[key] += result[key]
    progress.add(result.conflictAt ?? batch.length)
    if (result.conflictAt !== undefined) {
      const line = batchFirstLine + result.conflictAt
      throw new InputError(`line ${line}: plant ${batch[result.conflictAt]!.id} exists with different content (--on-conflict skip keeps the stored one, replace overwrites it)`)
    }
    batchFirstLine += batch.length
    batch = []
  }
  const take = async (next: Ahead) => {
    const { plants, error, lines: read } = await next.parsed
    bytes += next.bytes
    for (const plant of plants) {
      batch.push(plant)
      if (batch.length >= batchSize) await flush()
    }
    lines = read
    if (error === undefined) return
    // Everything before the bad line is stored first.
    await flush()
    throw new InputError(error)
  }

  const ahead: Ahead[] = []
  let aheadBytes = 0
  const send = async (text: string, chunkBytes: number) => {
    ahead.push({ parsed: parser.parse(text), bytes: chunkBytes })
    aheadBytes += chunkBytes
    while (aheadBytes > AHEAD_BYTES) {
      const next = ahead.shift()!
      aheadBytes -= next.bytes
      await take(next)
    }
  }
  const finish = async () => {
    ahead.push({ parsed: parser.end(), bytes: 0 })
    for (const next of ahead.splice(0)) await take(next)
  }
  // Whole lines are checked to be UTF-8 before they are decoded (a line end is never inside a
  // character): other bytes would decode to U+FFFD and be stored as such.
  const sendLines = async (whole: Buffer, chunkBytes: number) => {
    if (isUtf8(whole)) return send(whole.toString('utf8'), chunkBytes)
    const bad = firstNonUtf8Byte(whole)
    const lineStart = whole.lastIndexOf(10, bad) + 1
    await send(whole.toString('utf8', 0, lineStart), chunkBytes)
    await finish()
    await flush()
    throw new InputError(`line ${lines + 1}: it is not UTF-8 (at byte ${bad - lineStart + 1} of the line)`)
  }
  let rest: Buffer = Buffer.alloc(0)
  let first = true
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk])
    if (first && startsWithBom(bytes)) bytes = bytes.subarray(3)
    first = false
    const end = bytes.lastIndexOf(10) + 1
    rest = bytes.subarray(end)
    await sendLines(bytes.subarray(0, end), chunk.length)
  }
  await sendLines(rest, 0)
  await finish()
  await flush()
  progress.done(`imported ${counted(lines, 'line')}: ${totals.created} created, ${totals.identical} identical skipped` +
    (totals.kept > 0 ? `, ${totals.kept} kept` : '') + (totals.replaced > 0 ? `, ${totals.replaced} replaced` : ''), lines)
}
