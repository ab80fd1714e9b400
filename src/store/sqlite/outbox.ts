import type Database from 'better-sqlite3'
import { newMessageId } from '../../contract/message-id.js'
import { newPlantJson } from '../../contract/plant.js'
import type { Plant } from '../../contract/plant.js'

/**
 * Writing newPlant events into the outbox on SQLite, one row per live subscription, in the caller's
 * transaction: for creates (write-jobs.ts) and imports with --notify (bulk.ts) alike.
 */
export function prepareOutbox (db: Database.Database) {
  const enqueue = db.prepare(`INSERT INTO webhook_deliveries
    (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
    SELECT ?, id, ?, ?, ?, ? FROM webhook_subscriptions WHERE removed_at IS NULL`)
  const anySubscriber = db.prepare('SELECT 1 FROM webhook_subscriptions WHERE removed_at IS NULL LIMIT 1').pluck()
  return {
    /** Whether anyone subscribes (asked once per batch, so that a store without subscribers makes no event). */
    anySubscriber: (): boolean => anySubscriber.get() !== undefined,
    /** The plant's event for every live subscription; true when there was one at least. */
    enqueue: (plant: Plant, now: number): boolean => enqueue.run(newMessageId(), plant.id, newPlantJson(plant), now, now).changes > 0
  }
}
