import type Database from 'better-sqlite3'
import { toAgedDelivery } from '../delivery-rows.js'
import type { AgedDeliveryRow, DeliveryRow } from '../delivery-rows.js'
import { deliveryRetention, DISABLED_PAST_RETENTION, healthChanges, throttleAllowance } from '../webhook-bookkeeping.js'
import type { AttemptResult } from '../store.js'
import type { HealthAttempt, QuotaRow } from '../webhook-bookkeeping.js'
import { opaqueInteger } from './connection.js'

/** The dispatcher's writes, as write jobs (write-jobs.ts): plain data, so that they cross to the writer thread. */
export type DeliveryJob =
  | { op: 'claim', subscriptionId: number, now: number, leaseUntil: number, max: number, perSecond: number | null }
  | { op: 'attempt', deliveryId: number, subscriptionId: number, at: number, result: AttemptResult }
  | { op: 'pruneDeliveries', before: number, max: number, after: number }
  | { op: 'release', deliveries: Array<[id: number, leaseUntil: number]> }

const claimSql = `
UPDATE webhook_deliveries SET locked_until = :leaseUntil
WHERE id IN (
  SELECT id FROM webhook_deliveries
  WHERE subscription_id = ${opaqueInteger(':subscriptionId')} AND delivered_at IS NULL AND failed_at IS NULL
    AND next_attempt_at <= :now AND (locked_until IS NULL OR locked_until <= :now)
    AND (SELECT disabled_at FROM webhook_subscriptions WHERE id = :subscriptionId) IS NULL
  ORDER BY next_attempt_at, id
  LIMIT ${opaqueInteger(':max')})
RETURNING id, message_id, subscription_id, payload, attempts, created_at, redelivered_at, trace_parent`

// A give-up made while the attempt was in flight (the subscription removed, retention) stays.
const attemptSql = `
UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL, last_status = ?, last_error = ?,
  last_attempt_at = ?, delivered_at = coalesce(?, delivered_at), failed_at = coalesce(?, failed_at), next_attempt_at = coalesce(?, next_attempt_at)
WHERE id = ?`

/**
 * A batch of attempts' effect on one subscription (see healthChanges). An attempt that ends after its
 * subscription was disabled leaves the reason it was disabled as its last error.
 */
const healthSql = `
UPDATE webhook_subscriptions SET last_success_at = coalesce(:lastSuccessAt, last_success_at),
  consecutive_failures = CASE WHEN :lastSuccessAt IS NOT NULL THEN :failures ELSE consecutive_failures + :failures END,
  failing_since = CASE WHEN :failures = 0 THEN NULL WHEN :lastSuccessAt IS NOT NULL THEN :firstFailureAt
    ELSE coalesce(failing_since, :firstFailureAt) END,
  last_error = CASE WHEN disabled_at IS NOT NULL THEN last_error ELSE :lastError END
WHERE id = :subscriptionId`

/** Prepares the dispatcher's jobs on the writer's connection; `health` runs once per batch, after its attempts. */
export function prepareDeliveryJobs (db: Database.Database) {
  const claim = db.prepare<{}, DeliveryRow>(claimSql)
  const quota = db.prepare<[number], QuotaRow>('SELECT rate_second, rate_used FROM webhook_subscriptions WHERE id = ?')
  const spend = db.prepare('UPDATE webhook_subscriptions SET rate_second = ?, rate_used = ? WHERE id = ?')
  const attempt = db.prepare(attemptSql)
  const health = db.prepare(healthSql)
  const scan = db.prepare<[number, number], AgedDeliveryRow>(
    `SELECT d.id, d.created_at, d.delivered_at, d.failed_at, s.disabled_at FROM webhook_deliveries d
    JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id > ? ORDER BY d.id LIMIT ${opaqueInteger('?')}`)
  // Only a lease that is still ours: one lapsed and taken by another dispatcher stays.
  const release = db.prepare(`UPDATE webhook_deliveries SET locked_until = NULL
    WHERE id = ? AND locked_until = ? AND delivered_at IS NULL AND failed_at IS NULL`)
  const remove = db.prepare('DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))')
  const giveUp = db.prepare(`UPDATE webhook_deliveries SET failed_at = ?, last_error = ?
    WHERE id IN (SELECT value FROM json_each(?)) AND delivered_at IS NULL AND failed_at IS NULL`)

  return {
    /** Claims due deliveries; a throttled subscription's claims spend its current second's allowance, shared by every dispatcher. */
    claim: (job: Extract<DeliveryJob, { op: 'claim' }>): DeliveryRow[] => {
      const { subscriptionId, now, leaseUntil, max, perSecond } = job
      if (perSecond === null) return claim.all({ subscriptionId, now, leaseUntil, max })
      const { second, used, allowed } = throttleAllowance(quota.get(subscriptionId), now, perSecond, max)
      if (allowed <= 0) return []
      const rows = claim.all({ subscriptionId, now, leaseUntil, max: allowed })
      if (rows.length > 0) spend.run(second, used + rows.length, subscriptionId)
      return rows
    },
    attempt: ({ deliveryId, at, result: { delivered, status, error, nextAttemptAt } }: Extract<DeliveryJob, { op: 'attempt' }>): null => {
      attempt.run(status, error, at, delivered ? at : null, !delivered && nextAttemptAt === null ? at : null, nextAttemptAt?.getTime() ?? null, deliveryId)
      return null
    },
    release: ({ deliveries }: Extract<DeliveryJob, { op: 'release' }>): null => {
      for (const [id, leaseUntil] of deliveries) release.run(id, leaseUntil)
      return null
    },
    health: (attempts: HealthAttempt[]) => {
      for (const change of healthChanges(attempts)) health.run(change)
    },
    pruneDeliveries: ({ before, max, after }: Extract<DeliveryJob, { op: 'pruneDeliveries' }>) => {
      const { remove: ids, giveUp: stale, next } = deliveryRetention(scan.all(after, max).map(toAgedDelivery), before, max)
      if (stale.length > 0) giveUp.run(Date.now(), DISABLED_PAST_RETENTION, JSON.stringify(stale))
      const deleted = ids.length === 0 ? 0 : remove.run(JSON.stringify(ids)).changes
      return { deleted, next }
    }
  }
}
