import { ifMatch } from '../contract/etag.js'
import type { PlantChange } from '../contract/events.js'
import { patched, sameContent } from '../contract/plant-patch.js'
import { errorOf } from '../contract/write-answers.js'
import type { OperationOutcome } from '../contract/write-answers.js'
import type { Plant, PlantOperation } from './plant-store.js'

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
  const { precondition } = operation
  if (precondition !== undefined && !ifMatch(precondition)!(current)) return { outcome: { kind: 'precondition-failed', plant: current, precondition } }
  if (operation.op === 'delete') return { outcome: { kind: 'deleted', plant: current }, change: { type: 'plant.deleted', plant: current, trace } }
  const plant = operation.op === 'replace' ? operation.plant : patched(current, operation.patch)
  if (operation.op === 'patch' && sameContent(plant, current)) return { outcome: { kind: 'done', plant: current } }
  return { outcome: { kind: 'done', plant }, change: { type: 'plant.updated', plant, before: current, trace } }
}

/** Whether an outcome fails its request (a batch then writes nothing). */
export const failed = (outcome: OperationOutcome) => errorOf(outcome) !== undefined
