import type Database from 'better-sqlite3'
import { eventBefore, eventData } from '../../contract/events.js'
import type { PlantChange } from '../../contract/events.js'
import { newMessageId } from '../../contract/message-id.js'
import { newPlantJson } from '../../contract/plant.js'
import { envelopeJson } from '../../contract/webhook.js'
import { SubscriptionFilters } from '../subscription-filters.js'

/**
 * The log position: the highest sequence ever drawn (AUTOINCREMENT's record of it, which retention
 * cannot lower), 0 before the first event.
 */
export const LOG_POSITION_SQL = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)"

/** A delivery per subscription, with the columns every enqueue writes. */
const DELIVERY_COLUMNS = '(message_id, subscription_id, plant_id, payload, created_at, next_attempt_at, trace_parent, event_type)'

/** Subscriptions that chose a type, given as ` type ` (spaces around) in the statement. */
export const CHOSE_TYPE = "instr(' ' || event_types || ' ', ?) > 0"

/**
 * The outbox on SQLite, in the caller's transaction: a change's event appended to the log (which the
 * streams read), and its webhook deliveries (the dispatcher's state of the same event, sharing its
 * message id): a newPlant body for a created plant to each subscription that chose no events, a
 * Standard Webhooks envelope to each that chose its type. Disabled subscriptions keep receiving
 * theirs, sent once they are enabled again. Creates (write-jobs.ts), replaces and deletes (plants.ts)
 * and imports with --notify (bulk.ts) all write through it.
 */
export function prepareOutbox (db: Database.Database) {
  const append = db.prepare('INSERT INTO events (type, message_id, data, before, created_at, trace_parent) VALUES (?, ?, ?, ?, ?, ?)')
  const enqueueNewPlant = db.prepare(`INSERT INTO webhook_deliveries ${DELIVERY_COLUMNS}
    SELECT ?, id, ?, ?, ?, ?, ?, 'plant.created' FROM webhook_subscriptions WHERE removed_at IS NULL AND event_types IS NULL`)
  const enqueueChosen = db.prepare(`INSERT INTO webhook_deliveries ${DELIVERY_COLUMNS}
    SELECT ?, id, ?, ?, ?, ?, ?, ? FROM webhook_subscriptions WHERE removed_at IS NULL AND filter IS NULL AND ${CHOSE_TYPE}`)
  const filteredChosen = db.prepare<[string], { id: bigint, filter: string }>(`SELECT id, filter FROM webhook_subscriptions
    WHERE removed_at IS NULL AND filter IS NOT NULL AND ${CHOSE_TYPE}`)
  const enqueueOne = db.prepare(`INSERT INTO webhook_deliveries ${DELIVERY_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
  const filters = new SubscriptionFilters()
  const anySubscriber = db.prepare('SELECT 1 FROM webhook_subscriptions WHERE removed_at IS NULL LIMIT 1').pluck()
  return {
    /** Whether anyone subscribes (asked once per batch, so that a batch without subscribers writes no delivery). */
    anySubscriber: (): boolean => anySubscriber.get() !== undefined,
    /** Appends the change's event, and its deliveries when `subscribed`; true when a delivery was written. */
    record: (change: PlantChange, now: number, subscribed: boolean): boolean => {
      const messageId = newMessageId()
      const data = eventData(change)
      const trace = change.trace ?? null
      append.run(change.type, messageId, data, eventBefore(change), now, trace)
      if (!subscribed) return false
      const { id } = change.plant
      const envelope = envelopeJson(change.type, new Date(now).toISOString(), data)
      let written = enqueueChosen.run(messageId, id, envelope, now, now, trace, change.type, ` ${change.type} `).changes
      if (change.type === 'plant.created') written += enqueueNewPlant.run(messageId, id, newPlantJson(change.plant), now, now, trace).changes
      for (const subscription of filteredChosen.all(` ${change.type} `)) {
        const sent = filters.decide(subscription.filter, change)
        if (sent === undefined) continue
        const payload = sent === 'left' ? envelopeJson('plant.left', new Date(now).toISOString(), `{"id":${id}}`) : envelope
        written += enqueueOne.run(messageId, subscription.id, id, payload, now, now, trace, sent === 'left' ? 'plant.left' : change.type).changes
      }
      return written > 0
    }
  }
}
