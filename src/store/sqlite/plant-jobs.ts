import type { Plant, Precondition, WriteOutcome } from '../store.js'
import { writeOutcomeOf } from '../plant-operations.js'
import type { prepareWriteRequests } from './write-requests.js'

/** A replace or delete as it crosses to the writer thread: plain data, its If-Match a header's text. */
export type PlantJob =
  | { op: 'replace', plant: Plant, precondition?: Precondition, trace?: string }
  | { op: 'delete', id: bigint, precondition?: Precondition, trace?: string }

/**
 * PUT and DELETE as write jobs: one operation through the writer's applier (write-requests.ts), in the
 * batch's one IMMEDIATE transaction, answered as PUT and DELETE always have been.
 */
export function preparePlantJobs (writes: ReturnType<typeof prepareWriteRequests>) {
  return (job: PlantJob, now: number, subscribed: boolean): WriteOutcome => {
    const { trace, ...operation } = job
    const { outcome, enqueued } = writes.apply(operation, trace, now, subscribed)
    return writeOutcomeOf(outcome, enqueued)
  }
}
