import type Database from 'better-sqlite3'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import type { OperationOutcome } from '../../contract/write-answers.js'
import { answerOf, decide, failed, keptResponse, keptValues, operationId, RolledBack } from '../plant-operations.js'
import type { KeptAnswer } from '../plant-operations.js'
import type { PlantOperation, WriteRequest, WriteResponse } from '../store.js'
import type { prepareOutbox } from './outbox.js'
import type { SearchIndex } from './search-index.js'
import { opaqueInteger } from './connection.js'

/** One operation applied: its outcome, whether it recorded an event, and whether a webhook delivery waits for it. */
interface Applied { outcome: OperationOutcome, recorded: boolean, enqueued: boolean }

/**
 * Plant writes on the writer's connection, inside the write queue's transaction: each operation (PUT,
 * DELETE, PATCH, a batch's) read, decided (plant-operations.ts), written with its search index entry
 * and event. A request's operations run under a savepoint of their own (a failure rolls back only
 * them, not the other jobs of the group commit), then its key's answer is kept, whatever the outcome.
 */
export function prepareWriteRequests (db: Database.Database, outbox: ReturnType<typeof prepareOutbox>, search: SearchIndex) {
  const select = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
  const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
  const remove = db.prepare('DELETE FROM plants WHERE id = ?')
  const kept = db.prepare<[string, string, number], KeptAnswer>(
    'SELECT request_hash, status, body, etag FROM idempotency_keys WHERE owner = ? AND key = ? AND expires_at > ?')
  const keep = db.prepare(`INSERT INTO idempotency_keys (owner, key, request_hash, status, body, etag, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET request_hash = excluded.request_hash,
    status = excluded.status, body = excluded.body, etag = excluded.etag, created_at = excluded.created_at, expires_at = excluded.expires_at`)
  const purge = db.prepare(`DELETE FROM idempotency_keys WHERE (owner, key) IN (
    SELECT owner, key FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ${opaqueInteger('?')})`)

  const apply = (operation: PlantOperation, trace: string | undefined, now: number, subscribed: boolean): Applied => {
    // A create inserts first: the stored plant is read only when its id is taken.
    const inserted = operation.op === 'create' && insert.run(operation.plant.id, operation.plant.name, operation.plant.tag ?? null, now).changes === 1
    const row = inserted ? undefined : select.get(operationId(operation))
    const { outcome, change } = decide(operation, row === undefined ? undefined : plantOfRow(row), trace)
    if (change === undefined) return { outcome, recorded: false, enqueued: false }
    const { plant } = change
    if (change.type === 'plant.created') {
      search.inserted(plant.id, plant.name)
    } else if (change.type === 'plant.updated') {
      update.run(plant.name, plant.tag ?? null, plant.id)
      search.renamed(plant.id, change.before.name, plant.name)
    } else {
      remove.run(plant.id)
      search.deleted(plant.id, plant.name)
    }
    return { outcome, recorded: true, enqueued: outbox.record(change, now, subscribed) }
  }
  const applyInOrder = (operations: PlantOperation[], trace: string | undefined, now: number, subscribed: boolean) => {
    const applied: Applied[] = []
    for (const operation of operations) {
      applied.push(apply(operation, trace, now, subscribed))
      if (failed(applied.at(-1)!.outcome)) throw new RolledBack(applied.map(({ outcome }) => outcome))
    }
    return applied
  }
  // A nested better-sqlite3 transaction is a savepoint: throwing rolls back to it. One operation needs
  // none: it is refused, if it is, before it writes anything (as PUT and DELETE are).
  const applyAll = db.transaction(applyInOrder)

  const write = (request: WriteRequest, now: number, subscribed: boolean): WriteResponse => {
    const { key } = request
    const found = key === undefined ? undefined : kept.get(key.owner, key.key, now)
    if (found !== undefined) return keptResponse(found, key!.hash)
    let applied: Applied[] = []
    let outcomes: OperationOutcome[]
    try {
      applied = (request.operations.length === 1 ? applyInOrder : applyAll)(request.operations, request.trace, now, subscribed)
      outcomes = applied.map(({ outcome }) => outcome)
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error
      outcomes = error.outcomes
    }
    const answer = answerOf(request, outcomes)
    if (key !== undefined) keep.run(...keptValues(key, answer, now))
    return { kind: 'answered', answer, replayed: false, written: applied.some(({ recorded }) => recorded), enqueued: applied.some(({ enqueued }) => enqueued) }
  }
  return { apply, write, purgeKeys: (now: number, max: number): number => purge.run(now, BigInt(max)).changes }
}
