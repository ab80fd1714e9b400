import type { PoolClient } from 'pg'
import { eventBefore, eventData } from '../../contract/events.js'
import type { PlantChange } from '../../contract/events.js'
import { newMessageId } from '../../contract/message-id.js'
import { newPlantJson } from '../../contract/plant.js'

/**
 * The log position a read's snapshot reflects: the newest sequence it sees. Writers make sequences
 * visible in order (EVENT_LOG_LOCK), so every smaller one is visible too; retention never deletes the newest.
 */
export const LOG_POSITION_SQL = 'SELECT coalesce(max(sequence), 0) FROM events'

/**
 * The lock every writer of the log holds from drawing its events' sequence numbers until it commits
 * (a transaction-level advisory lock): transactions that commit out of order cannot make a smaller
 * number visible after a larger one, so "everything after N" is well defined across instances.
 */
export const EVENT_LOG_LOCK = 'SELECT pg_advisory_xact_lock(7268001)'

/**
 * The outbox on PostgreSQL, in the caller's transaction: each change's event appended to the log (under
 * EVENT_LOG_LOCK, as late in the transaction as it can be), and its deliveries sharing the event's
 * message id: a newPlant body for a created plant to each subscription that chose no events, a
 * Standard Webhooks envelope to each that chose its type (see the SQLite outbox). `eventsSql` and
 * `deliveriesSql` are the statements (delivery ids follow the events' order, as lanes send by id); the batch insert of creates (create-batch.ts) embeds them in its own.
 */
export function eventsSql (changes: string, now: string): string {
  return `INSERT INTO events (type, message_id, data, before, created_at, trace_parent)
  SELECT c.type, c.message_id, c.data, c.before, ${now}, c.trace_parent FROM ${changes} ORDER BY c.ord`
}

/**
 * `changes` has type, message_id, plant_id, payload (the NewPlant, for creates) and data; `timestamp` is
 * the events' time, RFC 3339. The envelope is built here, byte for byte as envelopeJson
 * (contract/webhook.ts) writes it on SQLite, so that a batch without chosen subscriptions sends none.
 * With `handoff` (a bigint[] of subscriptions and a lease end), the deliveries to those subscriptions
 * are written already claimed, for the dispatcher they are handed to (DeliveryHandoff).
 */
export function deliveriesSql (changes: string, now: string, timestamp: string, handoff?: { subscriptions: string, leaseUntil: string }): string {
  const lockedUntil = handoff === undefined ? 'NULL::bigint' : `CASE WHEN s.id = ANY(${handoff.subscriptions}) THEN ${handoff.leaseUntil}::bigint END`
  return `INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at, trace_parent, event_type, locked_until)
  SELECT e.message_id, s.id, e.plant_id,
    CASE WHEN s.event_types IS NULL THEN e.payload
      ELSE '{"type":"' || f.type || '","timestamp":"' || ${timestamp} || '","data":' ||
        CASE WHEN f.type = 'plant.left' THEN '{"id":' || e.plant_id || '}' ELSE e.data END || '}' END,
    ${now}, ${now}, e.trace_parent, f.type, ${lockedUntil}
  FROM ${changes} JOIN webhook_subscriptions s ON s.removed_at IS NULL AND CASE WHEN s.event_types IS NULL
    THEN e.type = 'plant.created' ELSE ${choseType('e.type')} END
  CROSS JOIN LATERAL (SELECT ${filteredTypeSql}) f
  WHERE f.type IS NOT NULL ORDER BY e.ord, s.id`
}

/**
 * What a subscription `s` is sent of a change `e`: its type, none (NULL), or plant.left, by its filter
 * (plant_matches, a migration) over the plant after the change and before it (the rules of
 * subscription-filters.ts). A subscription without a filter costs the first branch only.
 */
const filteredTypeSql = `CASE
    WHEN s.filter_tree IS NULL THEN e.type
    WHEN e.type = 'plant.deleted' THEN CASE WHEN plant_matches(s.filter_tree, e.plant_id, e.before::jsonb->>'name', e.before::jsonb->>'tag') THEN e.type END
    WHEN plant_matches(s.filter_tree, e.plant_id, e.data::jsonb->>'name', e.data::jsonb->>'tag') THEN e.type
    WHEN e.type = 'plant.updated' AND plant_matches(s.filter_tree, e.plant_id, e.before::jsonb->>'name', e.before::jsonb->>'tag') THEN 'plant.left'
  END AS type`

/** Subscriptions `s` that chose the type the expression gives. */
export const choseType = (type: string) => `position(' ' || ${type} || ' ' in ' ' || s.event_types || ' ') > 0`

/**
 * A change's row as the log's statements read it: its message id, its event data, the NewPlant payload
 * of the original newPlant webhook (creates only), its traceparent, and the plant before it (not for creates).
 */
function outboxRow (change: PlantChange) {
  return {
    type: change.type,
    message_id: newMessageId(),
    data: eventData(change),
    plant_id: change.plant.id.toString(),
    payload: change.type === 'plant.created' ? newPlantJson(change.plant) : null,
    trace_parent: change.trace ?? null,
    before: eventBefore(change)
  }
}

/** The columns the batch insert of creates (create-batch.ts) binds as arrays: the rows' message ids, event data, payloads, traceparents. */
export function outboxColumns (changes: PlantChange[]) {
  const rows = changes.map(outboxRow)
  return {
    messageIds: rows.map((row) => row.message_id),
    traces: rows.map((row) => row.trace_parent),
    data: rows.map((row) => row.data),
    payloads: rows.map((row) => row.payload)
  }
}

// The log's lock is taken by the statement itself (the events' rows are drawn from a join with it), not
// by a statement before: a holder of the lock would otherwise wait for this process's event loop to send
// the append, and every writer in the cluster with it. It is taken once the changes are parsed (the
// count reads them all), so that every writer waits out the insert and the commit, not the parse too.
// The changes come as one JSON array of rows, which PostgreSQL parses in C, rather than as seven text
// arrays, each of whose elements pg escapes in JavaScript.
const appendSql = `WITH c AS MATERIALIZED (
  SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (type text, message_id text, data text, plant_id bigint, payload text, trace_parent text, before text))
    WITH ORDINALITY AS t (type, message_id, data, plant_id, payload, trace_parent, before, ord)
), lock AS (${EVENT_LOG_LOCK} FROM (SELECT count(*) FROM c) AS parsed
), appended AS (${eventsSql('c CROSS JOIN lock', '$2')})
${deliveriesSql('c e', '$2', '$3::text')}`

/** Writes the changes' events (and their deliveries) in the client's transaction; true when a delivery was written. */
export async function record (client: PoolClient, changes: PlantChange[], now: number): Promise<boolean> {
  if (changes.length === 0) return false
  const rows = changes.map(outboxRow)
  const written = await client.query({ name: 'outbox.append', text: appendSql, values: [JSON.stringify(rows), now, new Date(now).toISOString()] })
  return (written.rowCount ?? 0) > 0
}
