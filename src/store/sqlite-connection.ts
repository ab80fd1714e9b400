import Database from 'better-sqlite3'
import { newMessageId, newPlantJson } from '../webhooks/payload.js'
import { toPlant } from './rows.js'
import type { PlantRow } from './rows.js'
import { sameOrConflict } from './store.js'
import type { CreateOutcome, Plant } from './store.js'

export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

/** Opens a connection with the store's settings; every connection to one file, main or writer, uses these. */
export function connect (path: string, synchronous: SqliteSynchronous): Database.Database {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  // FULL by default: WAL frames are fsynced before a commit is visible or acknowledged.
  db.pragma(`synchronous = ${synchronous}`)
  db.pragma('busy_timeout = 5000')
  // Reads come from memory: a 64 MiB page cache, and the file mapped rather than read page by page.
  db.pragma('cache_size = -65536')
  db.pragma('mmap_size = 268435456')
  db.defaultSafeIntegers(true)
  return db
}

/**
 * The create transaction of a batch: every plant in order, in one IMMEDIATE transaction (one fsync),
 * each with its own outcome; two plants of one id in a batch see each other. A created plant's webhook
 * deliveries (the outbox) are written in the same transaction.
 */
export function createBatchRunner (db: Database.Database): (plants: Plant[]) => CreateOutcome[] {
  const insertPlant = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
  const selectPlant = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const enqueueDeliveries = db.prepare(`INSERT INTO webhook_deliveries
    (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
    SELECT ?, id, ?, ?, ?, ? FROM webhook_subscriptions WHERE removed_at IS NULL`)
  const createOne = (plant: Plant, now: number): CreateOutcome => {
    if (insertPlant.run(plant.id, plant.name, plant.tag ?? null, now).changes === 1) {
      const enqueued = enqueueDeliveries.run(newMessageId(), plant.id, newPlantJson(plant), now, now).changes > 0
      return { kind: 'created', plant, enqueued }
    }
    return sameOrConflict(plant, toPlant(selectPlant.get(plant.id)!))
  }
  const batch = db.transaction((plants: Plant[]) => {
    const now = Date.now()
    return plants.map((plant) => createOne(plant, now))
  })
  return (plants) => batch.immediate(plants)
}
