import { GroupCommit } from '../group-commit.js'
import { toDeliveries } from '../delivery-rows.js'
import type { SubscriptionRow } from '../rows.js'
import type { DeliveryRow } from '../delivery-rows.js'
import { healthChanges, throttleAllowance } from '../webhook-bookkeeping.js'
import type { QuotaRow } from '../webhook-bookkeeping.js'
import type { AttemptResult, Delivery, DeliveryClaim, DeliveryClaimStore, HandedDeliveries } from '../store.js'
import type { PostgresDatabase } from './database.js'
import { attemptsSql, claimSql, quotaSql, releaseSql } from './delivery-sql.js'

interface Attempt { deliveryId: number, subscriptionId: number, at: number, result: AttemptResult }

// An outcome is bookkeeping the sender does not wait on, and each statement, however few its rows,
// costs PostgreSQL a plan and a commit: outcomes wait this long to share one.
const OUTCOME_LINGER_MS = 10

/**
 * A dispatcher's side of the outbox on PostgreSQL: due deliveries claimed under a lease (shared by
 * every instance), handed ones adopted, leases released, and attempt outcomes written many to a statement.
 */
export class DeliveryClaims implements DeliveryClaimStore {
  readonly #db: PostgresDatabase
  readonly #attempts: GroupCommit<Attempt, null>

  constructor (db: PostgresDatabase) {
    this.#db = db
    this.#attempts = new GroupCommit((attempts: Attempt[]) => this.#recordAttempts(attempts), { maxInFlight: 2, lingerMs: OUTCOME_LINGER_MS })
  }

  async claim ({ subscriptionId, now, leaseMs, max, perSecond = null }: DeliveryClaim) {
    const leaseUntil = now + leaseMs
    const rows = perSecond === null
      ? await this.#db.query<DeliveryRow>(claimSql, [subscriptionId, now, leaseUntil, max], 'webhooks.claim')
      : await this.#throttledClaim(subscriptionId, now, leaseUntil, max, perSecond)
    return this.adopt(subscriptionId, { leaseUntil, rows })
  }

  async adopt (subscriptionId: number, { leaseUntil, rows }: HandedDeliveries) {
    if (rows.length === 0) return []
    const [subscription] = await this.#db.query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = $1', [subscriptionId])
    return toDeliveries(rows, subscription, leaseUntil)
  }

  /** A throttled subscription's claim spends its current second's allowance, shared by every instance (its row locked meanwhile). */
  async #throttledClaim (subscriptionId: number, now: number, leaseUntil: number, max: number, perSecond: number) {
    return this.#db.transaction(async (client) => {
      const { rows: [quota] } = await client.query<QuotaRow>(quotaSql, [subscriptionId])
      const { second, used, allowed } = throttleAllowance(quota, now, perSecond, max)
      if (allowed <= 0) return []
      const { rows } = await client.query<DeliveryRow>(claimSql, [subscriptionId, now, leaseUntil, allowed])
      if (rows.length > 0) {
        await client.query('UPDATE webhook_subscriptions SET rate_second = $2, rate_used = $3 WHERE id = $1', [subscriptionId, second, used + rows.length])
      }
      return rows
    })
  }

  async release (deliveries: Array<Pick<Delivery, 'id' | 'leaseUntil'>>) {
    if (deliveries.length > 0) await this.#db.query(releaseSql, [deliveries.map((delivery) => delivery.id), deliveries.map((delivery) => delivery.leaseUntil)])
  }

  async recordAttempt ({ id, subscriptionId }: Pick<Delivery, 'id' | 'subscriptionId'>, result: AttemptResult) {
    await this.#attempts.submit({ deliveryId: id, subscriptionId, at: Date.now(), result })
  }

  async #recordAttempts (attempts: Attempt[]) {
    const health = healthChanges(attempts.map((a) => ({ subscriptionId: a.subscriptionId, at: a.at, delivered: a.result.delivered, error: a.result.error })))
    await this.#db.query(attemptsSql, [
      attempts.map((a) => a.deliveryId),
      attempts.map((a) => a.result.status),
      attempts.map((a) => a.result.error),
      attempts.map((a) => a.at),
      attempts.map((a) => a.result.delivered),
      attempts.map((a) => !a.result.delivered && a.result.nextAttemptAt === null),
      attempts.map((a) => a.result.nextAttemptAt?.getTime() ?? null),
      health.map((h) => h.subscriptionId), health.map((h) => h.lastSuccessAt), health.map((h) => h.failures),
      health.map((h) => h.firstFailureAt), health.map((h) => h.lastError)
    ], 'webhooks.attempts')
    return attempts.map(() => null)
  }
}
