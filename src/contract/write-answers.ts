import { etagOf } from './etag.js'
import type { Refusal } from './etag.js'
import { NotFound, PlantConflict, PreconditionFailed } from './errors.js'
import type { ApiError } from './errors.js'
import { plantJson } from './plant.js'
import type { Plant } from './plant.js'

/**
 * An answer as it is sent and as an Idempotency-Key keeps it (so that a replay is the same bytes): its
 * status, its body (JSON text; none for 204) and the plant's ETag when it names one.
 */
export interface WriteAnswer { status: number, body?: string, etag?: string }

/** What one write did to its plant, as both stores report it. */
export type OperationOutcome =
  | { kind: 'created' | 'replayed' | 'done', plant: Plant }
  | { kind: 'deleted', plant: Plant }
  | { kind: 'missing', id: bigint }
  | { kind: 'conflict', plant: Plant }
  | { kind: 'precondition-failed', plant: Plant, refusal: Refusal }

/** The error an outcome stands for, or undefined when the write succeeded. */
export function errorOf (outcome: OperationOutcome): ApiError | undefined {
  switch (outcome.kind) {
    case 'missing': return new NotFound(`plant ${outcome.id} not found`)
    case 'conflict': return new PlantConflict(String(outcome.plant.id))
    case 'precondition-failed': return new PreconditionFailed(outcome.refusal, etagOf(outcome.plant))
    default: return undefined
  }
}

/** An error as an answer: the Error shape, its message prefixed (`operations/3: `) when it names a place. */
export function errorAnswer (error: ApiError, place = ''): WriteAnswer {
  return { status: error.status, body: JSON.stringify({ error: error.code, message: place + error.message }) }
}

/** One successful write's answer, as the operation alone gives it: 204 for a delete, else the plant (and, alone, its ETag). */
export function successAnswer (outcome: OperationOutcome, withEtag = true): WriteAnswer {
  if (outcome.kind === 'deleted') return { status: 204 }
  const { plant } = outcome as { plant: Plant }
  return withEtag ? { status: 200, body: plantJson(plant), etag: etagOf(plant) } : { status: 200, body: plantJson(plant) }
}

/** A single write's answer (PATCH, DELETE): its success or its error. */
export function singleAnswer (outcome: OperationOutcome): WriteAnswer {
  const error = errorOf(outcome)
  return error === undefined ? successAnswer(outcome) : errorAnswer(error)
}

/** A batch's answer: every result in order, or the first failure at its place. */
export function batchAnswer (outcomes: OperationOutcome[]): WriteAnswer {
  for (const [i, outcome] of outcomes.entries()) {
    const error = errorOf(outcome)
    if (error !== undefined) return errorAnswer(error, `operations/${i}: `)
  }
  const results = outcomes.map((outcome) => {
    const { status, body } = successAnswer(outcome, false)
    return body === undefined ? `{"status":${status}}` : `{"status":${status},"body":${body}}`
  })
  return { status: 200, body: `{"results":[${results.join(',')}]}` }
}
