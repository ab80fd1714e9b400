import type Database from 'better-sqlite3'
import { ifMatch } from '../../contract/etag.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import type { PlantChange } from '../../contract/events.js'
import type { Plant, Precondition, WriteOutcome } from '../store.js'
import type { prepareOutbox } from './outbox.js'
import type { SearchIndex } from './search-index.js'

/** A replace or delete as it crosses to the writer thread: plain data, its If-Match a header's text. */
export type PlantJob =
  | { op: 'replace', plant: Plant, precondition?: Precondition, trace?: string }
  | { op: 'delete', id: bigint, precondition?: Precondition, trace?: string }

/**
 * Replaces and deletes, run by the write queue's runner (on a file, the writer thread): read, check the
 * precondition and write in the batch's one IMMEDIATE transaction, the change's event appended in it.
 */
export function preparePlantJobs (db: Database.Database, outbox: ReturnType<typeof prepareOutbox>, search: SearchIndex) {
  const selectPlant = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
  const remove = db.prepare('DELETE FROM plants WHERE id = ?')

  const guarded = (id: bigint, precondition: Precondition | undefined, now: number, subscribed: boolean, apply: (current: Plant) => PlantChange): WriteOutcome => {
    const row = selectPlant.get(id)
    if (row === undefined) return { kind: 'missing' }
    const current = plantOfRow(row)
    if (precondition !== undefined && !ifMatch(precondition)!(current)) return { kind: 'precondition-failed', plant: current }
    const change = apply(current)
    const enqueued = outbox.record(change, now, subscribed)
    return { kind: 'done', plant: change.type === 'plant.deleted' ? current : change.plant as Plant, enqueued }
  }

  return (job: PlantJob, now: number, subscribed: boolean): WriteOutcome => job.op === 'replace'
    ? guarded(job.plant.id, job.precondition, now, subscribed, (current) => {
      update.run(job.plant.name, job.plant.tag ?? null, job.plant.id)
      search.renamed(job.plant.id, current.name, job.plant.name)
      return { type: 'plant.updated', plant: job.plant, before: current, trace: job.trace }
    })
    : guarded(job.id, job.precondition, now, subscribed, (current) => {
      remove.run(job.id)
      search.deleted(job.id, current.name)
      return { type: 'plant.deleted', plant: current, trace: job.trace }
    })
}
