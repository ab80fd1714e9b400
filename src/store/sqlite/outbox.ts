import type Database from 'better-sqlite3'
import { eventData } from '../../contract/events.js'
import type { PlantChange } from '../../contract/events.js'
import { newMessageId } from '../../contract/message-id.js'
import { newPlantJson } from '../../contract/plant.js'
import type { Plant } from '../../contract/plant.js'

/**
 * The log position: the highest sequence ever drawn (AUTOINCREMENT's record of it, which retention
 * cannot lower), 0 before the first event.
 */
export const LOG_POSITION_SQL = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)"

/**
 * The outbox on SQLite, in the caller's transaction: a change's event appended to the log (which the
 * streams read), and for a created plant a newPlant delivery per live subscription (the webhook
 * dispatcher's state of the same event, sharing its message id). Creates (write-jobs.ts), replaces
 * and deletes (plants.ts) and imports with --notify (bulk.ts) all write through it.
 */
export function prepareOutbox (db: Database.Database) {
  const append = db.prepare('INSERT INTO events (type, message_id, data, created_at) VALUES (?, ?, ?, ?)')
  const enqueue = db.prepare(`INSERT INTO webhook_deliveries
    (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
    SELECT ?, id, ?, ?, ?, ? FROM webhook_subscriptions WHERE removed_at IS NULL`)
  const anySubscriber = db.prepare('SELECT 1 FROM webhook_subscriptions WHERE removed_at IS NULL LIMIT 1').pluck()
  return {
    /** Whether anyone subscribes (asked once per batch, so that a batch without subscribers writes no delivery). */
    anySubscriber: (): boolean => anySubscriber.get() !== undefined,
    /** Appends the change's event, and its deliveries when `subscribed`; true when a delivery was written. */
    record: (change: PlantChange, now: number, subscribed: boolean): boolean => {
      const messageId = newMessageId()
      append.run(change.type, messageId, eventData(change), now)
      if (!subscribed || change.type !== 'plant.created') return false
      return enqueue.run(messageId, change.plant.id, newPlantJson(change.plant as Plant), now, now).changes > 0
    }
  }
}
