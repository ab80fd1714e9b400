import type pg from 'pg'
import { toPlant } from '../../contract/plant.js'
import { deliveriesSql, EVENT_LOG_LOCK, eventsSql, outboxColumns } from './outbox.js'
import { sameOrConflict } from '../store.js'
import type { CreateOutcome, Plant } from '../store.js'
import type { DeliveryRow } from '../delivery-rows.js'

/**
 * Creates a batch of plants with distinct ids in one statement, hence one round trip and one commit:
 * insert what is new (ON CONFLICT DO NOTHING), write the outbox rows of what was inserted, and answer,
 * per input row in order, whether it was inserted and the stored content of the ones that were not.
 * Rows are inserted in id order, whatever order they arrived in: an insert waits on another
 * transaction's uncommitted row of the same id, so two batches taking their ids in different orders
 * could each hold an id the other waits for, and one would fail with a deadlock.
 * Each inserted plant's event is appended to the log, under the log's lock (outbox.ts), which the
 * statement takes only once it has a row to append.
 * The stored plants are looked up one id at a time (LATERAL, kept apart from the join by its LIMIT): a
 * join's plan, prepared while the table was small, hashed the whole table for every batch long after
 * it had grown.
 * The deliveries to the subscriptions in $10 are written claimed until $11 and come back in `handed`,
 * for the dispatcher they are handed to (DeliveryHandoff); `enqueued` says whether any other waits.
 * $1 ids, $2 names, $3 tags, $4 message ids, $5 payloads, $6 now, $7 event data, $8 now in RFC 3339,
 * $9 traceparents, $10 subscriptions handed to, $11 the lease's end.
 */
export const createBatchSql = `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $7::text[], $9::text[])
    WITH ORDINALITY AS t (id, name, tag, message_id, payload, data, trace_parent, ord)
), inserted AS (
  INSERT INTO plants (id, name, tag, created_at)
  SELECT id, name, tag, $6 FROM input ORDER BY id
  ON CONFLICT (id) DO NOTHING
  RETURNING id
), created AS (
  SELECT 'plant.created' AS type, input.message_id, input.id AS plant_id, input.payload, input.data, NULL::text AS before, input.trace_parent, input.ord
  FROM input JOIN inserted ON inserted.id = input.id
), lock AS (${EVENT_LOG_LOCK}
), appended AS (
  ${eventsSql('created c CROSS JOIN lock', '$6')}
), outbox AS (
  ${deliveriesSql('created e', '$6', '$8::text', { subscriptions: '$10::bigint[]', leaseUntil: '$11' })}
  RETURNING id, message_id, subscription_id, plant_id, payload, created_at, trace_parent, locked_until
), per_plant AS (
  SELECT plant_id, bool_or(locked_until IS NULL) AS enqueued,
    json_agg(json_build_object('id', id, 'message_id', message_id, 'subscription_id', subscription_id, 'payload', payload,
      'attempts', 0, 'created_at', created_at, 'redelivered_at', NULL, 'trace_parent', trace_parent)) FILTER (WHERE locked_until IS NOT NULL) AS handed
  FROM outbox GROUP BY plant_id
)
SELECT input.ord, inserted.id IS NOT NULL AS created, coalesce(per_plant.enqueued, false) AS enqueued, per_plant.handed,
  stored.id IS NOT NULL AS found, stored.name, stored.tag
FROM input
LEFT JOIN inserted ON inserted.id = input.id
LEFT JOIN per_plant ON per_plant.plant_id = input.id
LEFT JOIN LATERAL (SELECT id, name, tag FROM plants WHERE plants.id = input.id LIMIT 1) stored ON true
ORDER BY input.ord`

export interface BatchRow { created: boolean, enqueued: boolean, handed: DeliveryRow[] | null, found: boolean, name: string | null, tag: string | null }

/** A create waiting for its batch: the plant, and the traceparent of the request that made it. */
export interface PendingCreate { plant: Plant, trace: string | undefined }

/** The statement's parameters for a batch of plants with distinct ids; `handoff`: where deliveries are handed over, and until when. */
export function createBatchParams (creates: PendingCreate[], now: number, handoff: { subscriptions: readonly number[], leaseUntil: number } = { subscriptions: [], leaseUntil: 0 }): unknown[] {
  const plants = creates.map((create) => create.plant)
  const { messageIds, data, payloads, traces } = outboxColumns(creates.map(({ plant, trace }) => ({ type: 'plant.created', plant, trace })))
  return [
    plants.map((plant) => plant.id.toString()),
    plants.map((plant) => plant.name),
    plants.map((plant) => plant.tag ?? null),
    messageIds,
    payloads,
    now,
    data,
    new Date(now).toISOString(),
    traces,
    handoff.subscriptions,
    handoff.leaseUntil
  ]
}

/**
 * One plant's outcome from its row. Undefined when the row cannot tell: the id conflicted with a plant
 * committed after this statement's snapshot was taken, so the stored content was not visible to it.
 */
export function outcomeOf (plant: Plant, row: BatchRow): CreateOutcome | undefined {
  if (row.created) return { kind: 'created', plant, enqueued: row.enqueued }
  if (!row.found) return undefined
  return sameOrConflict(plant, toPlant(plant.id, row.name!, row.tag))
}

/** The batch statement's name: prepared once per connection. */
export const CREATE_BATCH = 'plants.create-batch'

/**
 * Readies a new connection for the write path: the batch statement prepared and run once with no
 * plants (it inserts nothing, appends nothing and takes no lock, yet plans every part and compiles the
 * search prefixes' trigger), and the name folding's dictionary loaded (unaccent reads it at first use).
 */
export async function warmConnection (client: pg.ClientBase) {
  await client.query({ name: CREATE_BATCH, text: createBatchSql, values: createBatchParams([], Date.now()) })
  await client.query("SELECT plant_search_text('')")
}
