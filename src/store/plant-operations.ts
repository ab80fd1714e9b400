import { refusal } from '../contract/etag.js'
import type { PlantChange } from '../contract/events.js'
import { patched, sameContent } from '../contract/plant-patch.js'
import { batchAnswer, errorOf, singleAnswer } from '../contract/write-answers.js'
import type { OperationOutcome, WriteAnswer } from '../contract/write-answers.js'
import type { IdempotencyKey, Plant, PlantOperation, WriteOutcome, WriteRequest, WriteResponse } from './plant-store.js'

/** The plant an operation is about. */
export const operationId = (operation: PlantOperation): bigint => 'plant' in operation ? operation.plant.id : operation.id

/**
 * What an operation does, given the plant stored under its id (undefined: none), as both stores apply
 * it inside their transaction: its outcome, and the change to write (none when it fails or changes
 * nothing: a create repeated as stored, a patch to what is already there).
 */
export function decide (operation: PlantOperation, current: Plant | undefined, trace: string | undefined): { outcome: OperationOutcome, change?: PlantChange } {
  if (operation.op === 'create') {
    if (current === undefined) return { outcome: { kind: 'created', plant: operation.plant }, change: { type: 'plant.created', plant: operation.plant, trace } }
    return { outcome: { kind: sameContent(operation.plant, current) ? 'replayed' : 'conflict', plant: current } }
  }
  if (current === undefined) return { outcome: { kind: 'missing', id: operationId(operation) } }
  const refused = operation.precondition === undefined ? undefined : refusal(operation.precondition, current)
  if (refused !== undefined) return { outcome: { kind: 'precondition-failed', plant: current, refusal: refused } }
  if (operation.op === 'delete') return { outcome: { kind: 'deleted', plant: current }, change: { type: 'plant.deleted', plant: current, trace } }
  const plant = operation.op === 'replace' ? operation.plant : patched(current, operation.patch)
  if (operation.op === 'patch' && sameContent(plant, current)) return { outcome: { kind: 'done', plant: current } }
  return { outcome: { kind: 'done', plant }, change: { type: 'plant.updated', plant, before: current, trace } }
}

/** Whether an outcome fails its request (a batch then writes nothing). */
export const failed = (outcome: OperationOutcome) => errorOf(outcome) !== undefined

/** A request's failure without a key to keep: thrown out of its transaction (or savepoint), so that all it wrote rolls back. */
export class RolledBack extends Error {
  constructor (readonly outcomes: OperationOutcome[]) { super('rolled back') }
}

/** A request's answer from its operations' outcomes (the last one the failure, when one failed). */
export const answerOf = (request: WriteRequest, outcomes: OperationOutcome[]): WriteAnswer =>
  request.answer === 'batch' ? batchAnswer(outcomes) : singleAnswer(outcomes[0]!)

/** An Idempotency-Key's row as both stores read it (SQLite gives integers as bigint). */
export interface KeptAnswer { request_hash: string, status: number | bigint, body: string | null, etag: string | null }

/** What a kept key answers a request with its hash: the kept answer replayed, or key-reused for another request. */
export function keptResponse (found: KeptAnswer, hash: string): WriteResponse {
  if (found.request_hash !== hash) return { kind: 'key-reused' }
  const answer: WriteAnswer = { status: Number(found.status), ...(found.body !== null && { body: found.body }), ...(found.etag !== null && { etag: found.etag }) }
  return { kind: 'answered', answer, replayed: true, written: false, enqueued: false }
}

/** The values of a key's row, in both stores' column order: owner, key, request_hash, status, body, etag, created_at, expires_at. */
export const keptValues = (key: IdempotencyKey, answer: WriteAnswer, now: number) =>
  [key.owner, key.key, key.hash, answer.status, answer.body ?? null, answer.etag ?? null, now, key.expiresAt]

/** A lone replace's or delete's outcome as PUT and DELETE have always reported it. */
export function writeOutcomeOf (outcome: OperationOutcome, enqueued: boolean): WriteOutcome {
  switch (outcome.kind) {
    case 'missing': return { kind: 'missing' }
    case 'precondition-failed': return { kind: 'precondition-failed', plant: outcome.plant, refusal: outcome.refusal }
    case 'done':
    case 'deleted': return { kind: 'done', plant: outcome.plant, enqueued }
    default: throw new Error(`a replace or delete cannot end ${outcome.kind}`)
  }
}
