import type Database from 'better-sqlite3'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { batchAnswer, singleAnswer } from '../../contract/write-answers.js'
import type { OperationOutcome, WriteAnswer } from '../../contract/write-answers.js'
import { decide, failed, operationId } from '../plant-operations.js'
import type { PlantOperation, WriteRequest, WriteResponse } from '../store.js'
import type { prepareOutbox } from './outbox.js'
import type { SearchIndex } from './search-index.js'
import { opaqueInteger } from './connection.js'

/** A batch's failure: thrown out of its savepoint, so that everything it wrote rolls back. */
class RolledBack extends Error {
  constructor (readonly outcomes: OperationOutcome[]) { super('rolled back') }
}

interface KeptAnswer { request_hash: string, status: number | bigint, body: string | null, etag: string | null }

/**
 * PATCH, keyed DELETE and POST /batch on the writer's connection, inside the write queue's transaction:
 * the operations under a savepoint of their own (a failure rolls back only them, not the other jobs of
 * the group commit), then the key's answer, kept whatever the outcome.
 */
export function prepareWriteRequests (db: Database.Database, outbox: ReturnType<typeof prepareOutbox>, search: SearchIndex) {
  const select = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?)')
  const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
  const remove = db.prepare('DELETE FROM plants WHERE id = ?')
  const kept = db.prepare<[string, string, number], KeptAnswer>(
    'SELECT request_hash, status, body, etag FROM idempotency_keys WHERE owner = ? AND key = ? AND expires_at > ?')
  const keep = db.prepare(`INSERT INTO idempotency_keys (owner, key, request_hash, status, body, etag, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET request_hash = excluded.request_hash,
    status = excluded.status, body = excluded.body, etag = excluded.etag, created_at = excluded.created_at, expires_at = excluded.expires_at`)

  // What the request's operations recorded (reset for each request): events, and deliveries among them.
  let recorded = 0
  let enqueued = false
  const apply = (operation: PlantOperation, trace: string | undefined, now: number, subscribed: boolean): OperationOutcome => {
    const row = select.get(operationId(operation))
    const { outcome, change } = decide(operation, row === undefined ? undefined : plantOfRow(row), trace)
    if (change === undefined) return outcome
    const { plant } = change
    if (change.type === 'plant.created') {
      insert.run(plant.id, plant.name, plant.tag ?? null, now)
      search.inserted(plant.id, plant.name)
    } else if (change.type === 'plant.updated') {
      update.run(plant.name, plant.tag ?? null, plant.id)
      search.renamed(plant.id, change.before.name, plant.name)
    } else {
      remove.run(plant.id)
      search.deleted(plant.id, plant.name)
    }
    recorded++
    if (outbox.record(change, now, subscribed)) enqueued = true
    return outcome
  }
  // A nested better-sqlite3 transaction is a savepoint: throwing rolls back to it.
  const applyAll = db.transaction((operations: PlantOperation[], trace: string | undefined, now: number, subscribed: boolean) => {
    const outcomes: OperationOutcome[] = []
    for (const operation of operations) {
      const outcome = apply(operation, trace, now, subscribed)
      outcomes.push(outcome)
      if (failed(outcome)) throw new RolledBack(outcomes)
    }
    return outcomes
  })

  const purge = db.prepare(`DELETE FROM idempotency_keys WHERE (owner, key) IN (
    SELECT owner, key FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT ${opaqueInteger('?')})`)
  const purgeKeys = (now: number, max: number): number => purge.run(now, BigInt(max)).changes

  const write = (request: WriteRequest, now: number, subscribed: boolean): WriteResponse => {
    const { key } = request
    if (key !== undefined) {
      const found = kept.get(key.owner, key.key, now)
      if (found !== undefined) {
        if (found.request_hash !== key.hash) return { kind: 'key-reused' }
        const answer: WriteAnswer = { status: Number(found.status), ...(found.body !== null && { body: found.body }), ...(found.etag !== null && { etag: found.etag }) }
        return { kind: 'answered', answer, replayed: true, written: false, enqueued: false }
      }
    }
    recorded = 0
    enqueued = false
    let outcomes: OperationOutcome[]
    try {
      outcomes = applyAll(request.operations, request.trace, now, subscribed)
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error
      outcomes = error.outcomes
      recorded = 0
      enqueued = false
    }
    const answer = request.answer === 'batch' ? batchAnswer(outcomes) : singleAnswer(outcomes[0]!)
    if (key !== undefined) keep.run(key.owner, key.key, key.hash, answer.status, answer.body ?? null, answer.etag ?? null, now, key.expiresAt)
    return { kind: 'answered', answer, replayed: false, written: recorded > 0, enqueued }
  }
  return { write, purgeKeys }
}
