import type Database from 'better-sqlite3'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { sameOrConflict } from '../store.js'
import type { ImportOptions, ImportResult, Plant } from '../store.js'
import { WRITER_CHECKPOINT_FRAMES } from './connection.js'
import { prepareOutbox } from './outbox.js'
import { prepareSearchIndex } from './search-index.js'

/** An import batch as one transaction: its plants, sorted by id or in the file's order. */
export type ImportBatch = Database.Transaction<(plants: Plant[], options: ImportOptions, sorted: boolean) => ImportResult>

/** A sorted batch met a conflict under `fail`: it rolls back and runs again in the file's order. */
export class InFileOrder extends Error {}

/** Plants written by one multi-row INSERT: a statement, not a call into SQLite, per plant. */
const RUN = 100

/** An import batch, its statements prepared once (a run has many batches). */
export function prepareImportBatch (db: Database.Database): ImportBatch {
  // An import owns its process: a page cache that holds the pages random ids land on, and the
  // writer's long WAL, so a batch's pages are not copied into the file again after nearly every commit.
  db.pragma('cache_size = -32768')
  db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_FRAMES}`)
  const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
  const insertRun = db.prepare(`INSERT INTO plants (id, name, tag, created_at) VALUES ${Array(RUN).fill('(?, ?, ?, ?)').join(', ')} ON CONFLICT (id) DO NOTHING`)
  const select = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
  const savepoint = db.prepare('SAVEPOINT import_run')
  const rollback = db.prepare('ROLLBACK TO import_run')
  const release = db.prepare('RELEASE import_run')
  const outbox = prepareOutbox(db)
  const search = prepareSearchIndex(db)
  const values: unknown[] = new Array(RUN * 4)

  return db.transaction((plants: Plant[], { onConflict, notify }: ImportOptions, sorted: boolean): ImportResult => {
    const result: ImportResult = { created: 0, identical: 0, kept: 0, replaced: 0 }
    const now = Date.now()
    const subscribed = notify && outbox.anySubscriber()
    /** One plant; false when it conflicts under `fail` in the file's order. */
    const importOne = (plant: Plant): boolean => {
      if (insert.run(plant.id, plant.name, plant.tag ?? null, now).changes === 1) {
        search.inserted(plant.id, plant.name)
        result.created++
        if (notify) outbox.record({ type: 'plant.created', plant }, now, subscribed)
        return true
      }
      const stored = plantOfRow(select.get(plant.id)!)
      if (sameOrConflict(plant, stored).kind === 'replayed') result.identical++
      else if (onConflict === 'skip') result.kept++
      else if (onConflict === 'replace') {
        update.run(plant.name, plant.tag ?? null, plant.id)
        search.renamed(plant.id, stored.name, plant.name)
        if (notify) outbox.record({ type: 'plant.updated', plant, before: stored }, now, subscribed)
        result.replaced++
      } else {
        if (sorted) throw new InFileOrder()
        return false
      }
      return true
    }
    // Sorted and without --notify (a run records no events): runs of new plants in one statement
    // each; a run that meets a stored id is undone and taken a plant at a time.
    const inRuns = sorted && !notify ? plants.length - plants.length % RUN : 0
    let i = 0
    for (; i < inRuns; i += RUN) {
      for (let j = 0; j < RUN; j++) {
        const plant = plants[i + j]!
        values[4 * j] = plant.id
        values[4 * j + 1] = plant.name
        values[4 * j + 2] = plant.tag ?? null
        values[4 * j + 3] = now
      }
      savepoint.run()
      if (insertRun.run(values).changes === RUN) {
        for (let j = 0; j < RUN; j++) search.inserted(plants[i + j]!.id, plants[i + j]!.name)
        result.created += RUN
      } else {
        rollback.run()
        for (let j = 0; j < RUN; j++) importOne(plants[i + j]!)
      }
      release.run()
    }
    for (; i < plants.length; i++) {
      // What came before the conflict is committed, so a rerun after the fix goes on from there.
      if (!importOne(plants[i]!)) return { ...result, conflictAt: i }
    }
    return result
  })
}
