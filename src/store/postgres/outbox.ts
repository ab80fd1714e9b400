import type { PoolClient } from 'pg'
import { newMessageId } from '../../contract/message-id.js'
import { newPlantJson } from '../../contract/plant.js'
import type { Plant } from '../../contract/plant.js'

/**
 * The outbox on PostgreSQL: the one statement that writes newPlant events, one row per live subscription,
 * from `events (message_id, plant_id, payload)`, a relation the caller names (a CTE of its own statement
 * or the arrays of `enqueue`), in the caller's transaction. `now` is the parameter holding the time.
 */
export function outboxInsertSql (events: string, now: string): string {
  return `INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
  SELECT e.message_id, s.id, e.plant_id, e.payload, ${now}, ${now}
  FROM ${events} CROSS JOIN webhook_subscriptions s WHERE s.removed_at IS NULL`
}

/** Each plant's event id and payload, as the outbox stores them. */
export function outboxColumns (plants: Plant[]): { messageIds: string[], payloads: string[] } {
  return { messageIds: plants.map(() => newMessageId()), payloads: plants.map((plant) => newPlantJson(plant)) }
}

const enqueueSql = outboxInsertSql('unnest($1::text[], $2::bigint[], $3::text[]) AS e (message_id, plant_id, payload)', '$4')

/** Writes the plants' events in the client's transaction; true when any subscription got one. */
export async function enqueue (client: PoolClient, plants: Plant[], now: number): Promise<boolean> {
  const { messageIds, payloads } = outboxColumns(plants)
  const written = await client.query(enqueueSql, [messageIds, plants.map((plant) => plant.id.toString()), payloads, now])
  return (written.rowCount ?? 0) > 0
}
