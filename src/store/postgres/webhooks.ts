import { eventTypesText } from '../../contract/webhook.js'
import { subscriptionColumns, toSubscription } from '../rows.js'
import { toAgedDelivery, toDeliveryReport } from '../delivery-rows.js'
import type { SubscriptionRow } from '../rows.js'
import type { AgedDeliveryRow, DeliveryReportRow } from '../delivery-rows.js'
import { deliveryRetention, DISABLED_PAST_RETENTION } from '../webhook-bookkeeping.js'
import type { AttemptResult, Delivery, DeliveryClaim, DeliveryQuery, HandedDeliveries, NewSubscription, SubscriptionChanges, SubscriptionQuery, WebhookStore } from '../store.js'
import { changedColumns, disabledNotices, filterTreeOf } from '../subscription-changes.js'
import type { PostgresDatabase } from './database.js'
import { DeliveryClaims } from './delivery-claims.js'
import { disabledNoticeSql, retentionScanSql } from './delivery-sql.js'

/**
 * Subscriptions and the outbox on PostgreSQL: what the API and retention do here, what a dispatcher
 * does (claims, leases, outcomes) in DeliveryClaims.
 */
export class PostgresWebhooks implements WebhookStore {
  readonly #db: PostgresDatabase
  readonly #claims: DeliveryClaims

  constructor (db: PostgresDatabase) {
    this.#db = db
    this.#claims = new DeliveryClaims(db)
  }

  claim (claim: DeliveryClaim) { return this.#claims.claim(claim) }
  adopt (subscriptionId: number, handed: HandedDeliveries) { return this.#claims.adopt(subscriptionId, handed) }
  release (deliveries: Array<Pick<Delivery, 'id' | 'leaseUntil'>>) { return this.#claims.release(deliveries) }
  recordAttempt (delivery: Pick<Delivery, 'id' | 'subscriptionId'>, result: AttemptResult) { return this.#claims.recordAttempt(delivery, result) }

  async addSubscription ({ url, secret, description = null, operator, owner = null, events = null, filter = null, maxPerSecond = null, maxForOwner }: NewSubscription) {
    return this.#db.transaction(async (client) => {
      // Two instances adding for one owner at once take turns, so the cap holds across instances.
      if (owner !== null) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook-owner ${owner}`])
      const { rows: [row] } = await client.query<SubscriptionRow>(`INSERT INTO webhook_subscriptions (url, secret, description, operator, owner, created_at, event_types, max_per_second, filter, filter_tree)
        SELECT $1, $2, $3, $4, $5, $6, $8, $9, $10, $11::jsonb WHERE $7::int IS NULL
          OR (SELECT count(*) FROM webhook_subscriptions WHERE owner = $5 AND removed_at IS NULL) < $7
        RETURNING *, 0 AS backlog`, [url, secret, description, operator, owner, Date.now(), maxForOwner ?? null, eventTypesText(events), maxPerSecond, filter, filterTreeOf(filter)])
      return row === undefined ? undefined : toSubscription(row)
    })
  }

  async updateSubscription (id: number, changes: SubscriptionChanges) {
    const row = await this.#db.transaction(async (client) => {
      const { rows: [current] } = await client.query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = $1 AND removed_at IS NULL FOR UPDATE', [id])
      if (current === undefined) return undefined
      const now = Date.now()
      const { columns, enabling } = changedColumns(toSubscription(current), changes, now, true)
      if (columns.length > 0) {
        await client.query(`UPDATE webhook_subscriptions SET ${columns.map(([name], i) => `${name} = $${i + 2}`).join(', ')} WHERE id = $1`,
          [id, ...columns.map(([, value]) => value)])
      }
      if (enabling) {
        await client.query(`UPDATE webhook_deliveries SET next_attempt_at = $1, locked_until = NULL
          WHERE subscription_id = $2 AND delivered_at IS NULL AND failed_at IS NULL`, [now, id])
      }
      return (await client.query<SubscriptionRow>(`SELECT ${subscriptionColumns()} FROM webhook_subscriptions s WHERE s.id = $1`, [id])).rows[0]
    })
    return row === undefined ? undefined : toSubscription(row)
  }

  async recover (subscriptionId: number, since: Date) {
    const now = Date.now()
    const recovered = await this.#db.query<{ id: bigint }>(`UPDATE webhook_deliveries
      SET failed_at = NULL, locked_until = NULL, next_attempt_at = $1, redelivered_at = $1
      WHERE subscription_id = $2 AND created_at >= $3 AND delivered_at IS NULL AND (failed_at IS NOT NULL OR last_error IS NOT NULL)
        AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL) RETURNING id`, [now, subscriptionId, since.getTime()])
    return recovered.length
  }

  async disableFailing (failingBefore: number, now = Date.now()) {
    // Asked every poll by every instance: a read first, so that no transaction runs while nobody fails.
    const failing = await this.#db.query(`SELECT 1 FROM webhook_subscriptions
      WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= $1 LIMIT 1`, [failingBefore])
    if (failing.length === 0) return []
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<SubscriptionRow>(`UPDATE webhook_subscriptions SET disabled_at = $1
        WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= $2 RETURNING *`, [now, failingBefore])
      const disabled = rows.map(toSubscription)
      for (const notice of disabledNotices(disabled, now)) {
        await client.query(disabledNoticeSql, [notice.messageId, notice.payload, now, notice.subscription.id, notice.subscription.owner])
      }
      return disabled
    })
  }

  async pruneDeliveries (before: number, max: number, after: number) {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<AgedDeliveryRow>(retentionScanSql, [after, max])
      const { remove, giveUp, next } = deliveryRetention(rows.map(toAgedDelivery), before, max)
      if (giveUp.length > 0) {
        await client.query(`UPDATE webhook_deliveries SET failed_at = $1, last_error = $2
          WHERE id = ANY($3::bigint[]) AND delivered_at IS NULL AND failed_at IS NULL`, [Date.now(), DISABLED_PAST_RETENTION, giveUp])
      }
      const deleted = remove.length === 0 ? 0 : (await client.query('DELETE FROM webhook_deliveries WHERE id = ANY($1::bigint[])', [remove])).rowCount ?? 0
      return { deleted, next }
    })
  }

  async listSubscriptions ({ owner, after, limit, withBacklog = false }: SubscriptionQuery = {}) {
    return (await this.#db.query<SubscriptionRow>(`SELECT ${subscriptionColumns(withBacklog)} FROM webhook_subscriptions s
      WHERE s.removed_at IS NULL AND ($1::text IS NULL OR s.owner = $1) AND s.id > $2
      ORDER BY s.id LIMIT $3`, [owner ?? null, after ?? 0, limit ?? null])).map(toSubscription)
  }

  async getSubscription (id: number) {
    const [row] = await this.#db.query<SubscriptionRow>(`SELECT ${subscriptionColumns()} FROM webhook_subscriptions s
      WHERE s.id = $1 AND s.removed_at IS NULL`, [id])
    return row === undefined ? undefined : toSubscription(row)
  }

  async removeSubscription (id: number) {
    return this.#db.transaction(async (client) => {
      const now = Date.now()
      const removed = await client.query('UPDATE webhook_subscriptions SET removed_at = $1 WHERE id = $2 AND removed_at IS NULL', [now, id])
      await client.query(`UPDATE webhook_deliveries SET failed_at = $1, last_error = 'subscription removed'
        WHERE subscription_id = $2 AND delivered_at IS NULL AND failed_at IS NULL`, [now, id])
      return removed.rowCount === 1
    })
  }

  async rotateSecret (id: number, secret: string, graceMs: number) {
    const [row] = await this.#db.query<SubscriptionRow>(`UPDATE webhook_subscriptions
      SET previous_secret = secret, previous_secret_expires_at = $1, secret = $2
      WHERE id = $3 AND removed_at IS NULL RETURNING *`, [Date.now() + graceMs, secret, id])
    return row === undefined ? undefined : toSubscription(row)
  }

  async listDeliveries ({ limit, subscriptionId, before }: DeliveryQuery) {
    return (await this.#db.query<DeliveryReportRow>(`SELECT d.*, s.url FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE ($1::bigint IS NULL OR d.subscription_id = $1)
        AND ($2::text IS NULL OR d.id < (SELECT b.id FROM webhook_deliveries b WHERE b.message_id = $2 AND ($1::bigint IS NULL OR b.subscription_id = $1)))
      ORDER BY d.id DESC LIMIT $3`, [subscriptionId ?? null, before ?? null, limit])).map(toDeliveryReport)
  }

  async redeliver (subscriptionId: number, messageId: string) {
    const now = Date.now()
    const updated = await this.#db.query<{ id: bigint }>(`UPDATE webhook_deliveries
      SET delivered_at = NULL, failed_at = NULL, locked_until = NULL, next_attempt_at = $1, redelivered_at = $1
      WHERE subscription_id = $2 AND message_id = $3
        AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL) RETURNING id`, [now, subscriptionId, messageId])
    return updated.length > 0
  }

  async backlog () {
    const rows = await this.#db.query<{ subscription_id: bigint, n: bigint }>(`SELECT subscription_id, count(*) AS n
      FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL GROUP BY subscription_id`)
    return new Map(rows.map((row) => [Number(row.subscription_id), Number(row.n)]))
  }
}
