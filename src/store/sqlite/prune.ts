import type Database from 'better-sqlite3'
import { prunableThrough } from '../event-store.js'
import type { AgedEvent } from '../event-store.js'
import { opaqueInteger } from './connection.js'
import { LOG_POSITION_SQL } from './outbox.js'

/** Retention's one short transaction on the writer's connection (a write job). */
export function preparePrune (db: Database.Database) {
  const oldest = db.prepare<[bigint], { sequence: bigint, message_id: string, created_at: bigint }>(
    `SELECT sequence, message_id, created_at FROM events ORDER BY sequence LIMIT ${opaqueInteger('?')}`)
  const latest = db.prepare<[], bigint>(LOG_POSITION_SQL).pluck()
  const pending = db.prepare<[string], number>('SELECT 1 FROM webhook_deliveries WHERE message_id = ? AND delivered_at IS NULL AND failed_at IS NULL LIMIT 1').pluck()
  const remove = db.prepare('DELETE FROM events WHERE sequence <= ?')
  const mark = db.prepare('UPDATE event_log SET deleted_through = max(deleted_through, ?)')
  return (before: number, max: number): number => {
    const aged: AgedEvent[] = oldest.all(BigInt(max)).map((row) => ({ sequence: row.sequence, messageId: row.message_id, createdAt: Number(row.created_at) }))
    const through = prunableThrough(aged, before, latest.get()!, (messageId) => pending.get(messageId) !== undefined)
    if (through === undefined) return 0
    mark.run(through)
    return remove.run(through).changes
  }
}
