import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import type { Writable } from 'node:stream'
import { plantJson, plantOfRow } from '../contract/plant.js'
import { withStore } from './store-access.js'
import { counted, Progress } from './progress.js'

const BATCH = 10_000

/** plantstore export: NDJSON on stdout or --output, streamed (memory stays flat at any size). */
export async function runExport ({ output, quiet, ...database }: { output?: string, database?: string, databasePasswordFile?: string, quiet?: boolean }) {
  await withStore(database, async (store) => {
    const { plants: total } = await store.bulk.contents()
    const progress = new Progress('exported', { quiet, total })
    const out: Writable = output === undefined ? process.stdout : createWriteStream(output)
    const failed = once(out, 'error').then(([error]) => { throw error })
    failed.catch(() => {})
    for await (const batch of store.bulk.plants(BATCH)) {
      let chunk = ''
      for (const record of batch) chunk += `${plantJson(plantOfRow(record))}\n`
      // Backpressure: never more than one batch buffered ahead of a slow reader.
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed])
      progress.add(batch.length)
    }
    if (output !== undefined) {
      out.end()
      await Promise.race([once(out, 'finish'), failed])
    }
    progress.done(`exported ${counted(progress.count, 'plant')}${output === undefined ? '' : ` to ${output}`}`)
  })
}
