import { createReadStream, statSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { operation } from '../contract/document.js'
import { parseExactJson } from '../contract/exact-json.js'
import { plantOfBody } from '../contract/plant.js'
import { createBodyValidator } from '../contract/validators.js'
import type { ConflictMode, ImportResult, Plant } from '../store/store.js'
import { withStore } from './store-access.js'
import { Progress } from './progress.js'
import { InputError, UsageError } from './command-errors.js'

interface Options { onConflict: ConflictMode, notify?: boolean, batchSize: string, database?: string, quiet?: boolean }
interface Line { number: number, plant: Plant }

/**
 * plantstore import: each line validated as a create body (the API's own validator and int64 parsing),
 * stored in batches, each committed durably. The first bad line or (with --on-conflict fail) conflict
 * stops it with its line number, everything before it committed: a rerun after the fix finishes the
 * job, identical plants being skipped.
 */
export async function runImport (file: string, options: Options) {
  const batchSize = Number(options.batchSize)
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    throw new UsageError(`invalid --batch-size ${options.batchSize}: expected an integer from 1 to 100000`)
  }
  let size: number | undefined
  if (file !== '-') {
    try {
      size = statSync(file).size
    } catch {
      throw new UsageError(`cannot read ${file}: no such file`)
    }
  }
  const input: Readable = file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 })
  const validate = createBodyValidator(operation('createPlant').schema.body!)
  await withStore(options.database, async (store) => {
    let bytes = 0
    const progress = new Progress('imported', { quiet: options.quiet, total: size === undefined ? undefined : () => bytes / size! })
    const totals: Required<Omit<ImportResult, 'conflictAt'>> = { created: 0, identical: 0, kept: 0, replaced: 0 }
    let batch: Line[] = []

    const flush = async () => {
      if (batch.length === 0) return
      const result = await store.bulk.importPlants(batch.map((line) => line.plant), { onConflict: options.onConflict, notify: options.notify === true })
      for (const key of ['created', 'identical', 'kept', 'replaced'] as const) totals[key] += result[key]
      progress.add(result.conflictAt ?? batch.length)
      if (result.conflictAt !== undefined) {
        const { number, plant } = batch[result.conflictAt]!
        throw new InputError(`line ${number}: plant ${plant.id} exists with different content (--on-conflict skip keeps the stored one, replace overwrites it)`)
      }
      batch = []
    }
    const parse = (text: string, number: number): Plant => {
      if (text.trim() === '') throw new InputError(`line ${number}: empty line`)
      let value: unknown
      try {
        value = parseExactJson(text)
      } catch (error) {
        throw new InputError(`line ${number}: body is not valid JSON: ${(error as Error).message}`)
      }
      const problem = validate(value)
      if (problem !== undefined) throw new InputError(`line ${number}: ${problem}`)
      const body = value as { id: bigint, name: string, tag?: string }
      return plantOfBody(body.id, body)
    }

    try {
      let rest = ''
      let number = 0
      input.setEncoding('utf8')
      for await (const chunk of input as AsyncIterable<string>) {
        bytes += Buffer.byteLength(chunk)
        const lines = (rest + chunk).split('\n')
        rest = lines.pop()!
        for (const text of lines) {
          number++
          let plant: Plant
          try {
            plant = parse(text.endsWith('\r') ? text.slice(0, -1) : text, number)
          } catch (error) {
          // Everything before the bad line is stored first.
            await flush()
            throw error
          }
          batch.push({ number, plant })
          if (batch.length >= batchSize) await flush()
        }
      }
      if (rest.trim() !== '') {
        number++
        batch.push({ number, plant: parse(rest, number) })
      }
      await flush()
      progress.done(`imported ${number} lines: ${totals.created} created, ${totals.identical} identical skipped` +
      (totals.kept > 0 ? `, ${totals.kept} kept` : '') + (totals.replaced > 0 ? `, ${totals.replaced} replaced` : ''), number)
    } finally {
      if (file !== '-') input.destroy()
    }
  })
}
