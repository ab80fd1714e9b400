import type Database from 'better-sqlite3'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import type { DeliveryRow } from '../rows.js'
import { sameOrConflict } from '../store.js'
import type { AttemptResult, CreateOutcome, Plant } from '../store.js'
import { opaqueInteger } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { preparePrune } from './prune.js'
import { prepareOutbox } from './outbox.js'

/**
 * The writes that go through the store's one write queue (on a file, the writer thread): creates,
 * and the webhook dispatcher's bookkeeping (claims and attempt outcomes). Plain data, so that they
 * cross to the writer thread by postMessage.
 */
export type WriteJob =
  | { op: 'create', plant: Plant }
  | { op: 'claim', subscriptionId: number, now: number, leaseUntil: number, max: number }
  | { op: 'attempt', deliveryId: number, at: number, result: AttemptResult }
  | { op: 'prune', before: number, max: number }

/**
 * A create's result as it crosses back (small, so the message is cheap): 0 created, 1 created with
 * webhook deliveries enqueued, 2 an identical replay, or the different plant stored under its id.
 */
export type CreateResult = 0 | 1 | 2 | Plant

export type WriteResult = CreateResult | DeliveryRow[] | number | null

/** The outcome a create's result stands for. */
export function createOutcome (plant: Plant, result: CreateResult): CreateOutcome {
  if (typeof result !== 'number') return { kind: 'conflict', plant: result }
  return result === 2 ? { kind: 'replayed', plant } : { kind: 'created', plant, enqueued: result === 1 }
}

const claimSql = `
UPDATE webhook_deliveries SET locked_until = :leaseUntil
WHERE id IN (
  SELECT id FROM webhook_deliveries
  WHERE subscription_id = ${opaqueInteger(':subscriptionId')} AND delivered_at IS NULL AND failed_at IS NULL
    AND next_attempt_at <= :now AND (locked_until IS NULL OR locked_until <= :now)
  ORDER BY next_attempt_at, id
  LIMIT ${opaqueInteger(':max')})
RETURNING id, message_id, subscription_id, payload, attempts, created_at, redelivered_at`

const attemptSql = `
UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL, last_status = ?, last_error = ?,
  last_attempt_at = ?, delivered_at = ?, failed_at = ?, next_attempt_at = coalesce(?, next_attempt_at)
WHERE id = ?`

/**
 * Runs a batch of jobs in one IMMEDIATE transaction, each with its own result, in order (two creates
 * of one id see each other). A created plant's deliveries (the outbox) are written in its transaction.
 * Only creates need the commit's fsync: a batch of bookkeeping alone commits with synchronous=NORMAL
 * (a power cut may lose it, and then an event is sent again: at least once, never lost). The next
 * FULL commit fsyncs the WAL, earlier frames included, so creates stay as durable as configured.
 */
export function createWriteRunner (db: Database.Database, synchronous: SqliteSynchronous): (jobs: WriteJob[]) => WriteResult[] {
  const insertPlant = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
  const selectPlant = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
  const outbox = prepareOutbox(db)
  const claim = db.prepare<{}, DeliveryRow>(claimSql)
  const attempt = db.prepare(attemptSql)
  const prune = preparePrune(db)

  const create = (plant: Plant, now: number, subscribed: boolean): CreateResult => {
    if (insertPlant.run(plant.id, plant.name, plant.tag ?? null, now).changes === 1) {
      return outbox.record({ type: 'plant.created', plant }, now, subscribed) ? 1 : 0
    }
    const outcome = sameOrConflict(plant, plantOfRow(selectPlant.get(plant.id)!))
    return outcome.kind === 'replayed' ? 2 : outcome.plant
  }
  const run = (job: WriteJob, now: number, subscribed: boolean): WriteResult => {
    switch (job.op) {
      case 'create':
        return create(job.plant, now, subscribed)
      case 'claim':
        return claim.all({ subscriptionId: job.subscriptionId, now: job.now, leaseUntil: job.leaseUntil, max: job.max })
      case 'attempt': {
        const { delivered, status, error, nextAttemptAt } = job.result
        attempt.run(status, error, job.at, delivered ? job.at : null, !delivered && nextAttemptAt === null ? job.at : null,
          nextAttemptAt?.getTime() ?? null, job.deliveryId)
        return null
      }
      case 'prune':
        return prune(job.before, job.max)
    }
  }
  const batch = db.transaction((jobs: WriteJob[]) => {
    const now = Date.now()
    const subscribed = outbox.anySubscriber()
    return jobs.map((job) => run(job, now, subscribed))
  })

  const relaxable = synchronous === 'FULL' || synchronous === 'EXTRA'
  let current = synchronous
  return (jobs) => {
    if (relaxable) {
      const wanted = jobs.some((job) => job.op === 'create' || job.op === 'prune') ? synchronous : 'NORMAL'
      if (wanted !== current) db.pragma(`synchronous = ${wanted}`)
      current = wanted
    }
    return batch.immediate(jobs)
  }
}
