import type Database from 'better-sqlite3'
import type { GroupCommit } from '../group-commit.js'
import { subscriptionColumns, toDeliveries, toDeliveryReport, toSubscription } from '../rows.js'
import type { DeliveryReportRow, DeliveryRow, SubscriptionRow } from '../rows.js'
import type { AttemptResult, Delivery, DeliveryClaim, DeliveryQuery, HandedDeliveries, NewSubscription, SubscriptionChanges, SubscriptionQuery, WebhookStore } from '../store.js'
import { eventTypesText } from '../../contract/webhook.js'
import { changedColumns, disabledNotices } from '../subscription-changes.js'
import { CHOSE_TYPE } from './outbox.js'
import { guard, opaqueInteger, Statements } from './connection.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

/**
 * Subscriptions and the outbox on SQLite. The dispatcher's bookkeeping (claims, outcomes) goes through
 * the write queue with the creates, many to a transaction and off the event loop; the rest, rare and
 * small, runs on the main connection.
 */
export class SqliteWebhooks implements WebhookStore {
  readonly #db: Database.Database
  readonly #sql: Statements
  readonly #writes: GroupCommit<WriteJob, WriteResult>

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>) {
    this.#db = db
    this.#sql = new Statements(db)
    this.#writes = writes
  }

  async addSubscription ({ url, secret, description = null, operator, owner = null, events = null, maxPerSecond = null, maxForOwner }: NewSubscription) {
    // One connection, one statement: the count and the insert cannot interleave with another add.
    const row = guard(() => this.#sql.get<{}, SubscriptionRow>(`INSERT INTO webhook_subscriptions (url, secret, description, operator, owner, event_types, max_per_second, created_at)
      SELECT @url, @secret, @description, @operator, @owner, @events, @maxPerSecond, @now
      WHERE @max IS NULL OR (SELECT count(*) FROM webhook_subscriptions WHERE owner = @owner AND removed_at IS NULL) < @max
      RETURNING *, 0 AS backlog`).get({
      url, secret, description, operator: operator ? 1 : 0, owner, events: eventTypesText(events), maxPerSecond, now: Date.now(), max: maxForOwner ?? null
    }))
    return row === undefined ? undefined : toSubscription(row)
  }

  async updateSubscription (id: number, changes: SubscriptionChanges) {
    const update = this.#db.transaction(() => {
      const current = this.#sql.get<[number], SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = ? AND removed_at IS NULL').get(id)
      if (current === undefined) return undefined
      const now = Date.now()
      const { columns, enabling } = changedColumns(toSubscription(current), changes, now)
      if (columns.length > 0) {
        this.#sql.get(`UPDATE webhook_subscriptions SET ${columns.map(([name]) => `${name} = ?`).join(', ')} WHERE id = ?`)
          .run(...columns.map(([, value]) => value), id)
      }
      if (enabling) {
        this.#sql.get(`UPDATE webhook_deliveries SET next_attempt_at = ?, locked_until = NULL
          WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      }
      return this.#sql.get<[number], SubscriptionRow>(`SELECT ${subscriptionColumns()} FROM webhook_subscriptions s WHERE s.id = ?`).get(id)
    })
    const row = guard(() => update.immediate())
    return row === undefined ? undefined : toSubscription(row)
  }

  async recover (subscriptionId: number, since: Date) {
    const now = Date.now()
    return guard(() => this.#sql.get(`UPDATE webhook_deliveries
      SET failed_at = NULL, locked_until = NULL, next_attempt_at = ?, redelivered_at = ?
      WHERE subscription_id = ? AND created_at >= ? AND delivered_at IS NULL AND (failed_at IS NOT NULL OR last_error IS NOT NULL)
        AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL)`).run(now, now, subscriptionId, since.getTime()).changes)
  }

  async disableFailing (failingBefore: number, now = Date.now()) {
    // Asked every poll: a read first, so that nothing takes the write lock while nobody is failing.
    const failing = guard(() => this.#sql.get<[number], number>(`SELECT 1 FROM webhook_subscriptions
      WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= ? LIMIT 1`).get(failingBefore))
    if (failing === undefined) return []
    const disable = this.#db.transaction(() => {
      const rows = this.#sql.get<[number, number], SubscriptionRow>(`UPDATE webhook_subscriptions SET disabled_at = ?
        WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= ? RETURNING *`).all(now, failingBefore)
      const disabled = rows.map(toSubscription)
      for (const notice of disabledNotices(disabled, now)) {
        this.#sql.get(`INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at, event_type)
          SELECT ?, id, 0, ?, ?, ?, 'webhook.disabled' FROM webhook_subscriptions
          WHERE removed_at IS NULL AND id <> ? AND (owner IS NULL OR owner = ?) AND ${CHOSE_TYPE}`)
          .run(notice.messageId, notice.payload, now, now, notice.subscription.id, notice.subscription.owner, ' webhook.disabled ')
      }
      return disabled
    })
    return guard(() => disable.immediate())
  }

  async pruneDeliveries (before: number, max: number, after: number) {
    return await this.#writes.submit({ op: 'pruneDeliveries', before, max, after }) as { deleted: number, next: number | undefined }
  }

  async listSubscriptions ({ owner, after, limit, withBacklog = false }: SubscriptionQuery = {}) {
    return guard(() => this.#sql.get<{}, SubscriptionRow>(`SELECT ${subscriptionColumns(withBacklog)} FROM webhook_subscriptions s
      WHERE s.removed_at IS NULL AND (@owner IS NULL OR s.owner = @owner) AND s.id > ${opaqueInteger('@after')}
      ORDER BY s.id LIMIT ${opaqueInteger('@limit')}`).all({ owner: owner ?? null, after: after ?? 0, limit: limit ?? -1 }).map(toSubscription))
  }

  async getSubscription (id: number) {
    const row = guard(() => this.#sql.get<[number], SubscriptionRow>(`SELECT ${subscriptionColumns()} FROM webhook_subscriptions s
      WHERE s.id = ? AND s.removed_at IS NULL`).get(id))
    return row === undefined ? undefined : toSubscription(row)
  }

  async removeSubscription (id: number) {
    const remove = this.#db.transaction(() => {
      const now = Date.now()
      const { changes } = this.#sql.get('UPDATE webhook_subscriptions SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(now, id)
      this.#sql.get(`UPDATE webhook_deliveries SET failed_at = ?, last_error = 'subscription removed'
        WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      return changes === 1
    })
    return guard(() => remove.immediate())
  }

  async rotateSecret (id: number, secret: string, graceMs: number) {
    const row = guard(() => this.#sql.get<unknown[], SubscriptionRow>(`UPDATE webhook_subscriptions
      SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?
      WHERE id = ? AND removed_at IS NULL RETURNING *`).get(Date.now() + graceMs, secret, id))
    return row === undefined ? undefined : toSubscription(row)
  }

  async claim ({ subscriptionId, now, leaseMs, max, perSecond = null }: DeliveryClaim) {
    const leaseUntil = now + leaseMs
    const rows = await this.#writes.submit({ op: 'claim', subscriptionId, now, leaseUntil, max, perSecond }) as DeliveryRow[]
    return this.adopt(subscriptionId, { leaseUntil, rows })
  }

  async adopt (subscriptionId: number, { leaseUntil, rows }: HandedDeliveries) {
    if (rows.length === 0) return []
    const subscription = guard(() => this.#sql.get<[number], SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = ?').get(subscriptionId))
    return toDeliveries(rows, subscription, leaseUntil)
  }

  async release (deliveries: Array<Pick<Delivery, 'id' | 'leaseUntil'>>) {
    if (deliveries.length === 0) return
    await this.#writes.submit({ op: 'release', deliveries: deliveries.map((delivery) => [delivery.id, delivery.leaseUntil]) })
  }

  async recordAttempt ({ id, subscriptionId }: Pick<Delivery, 'id' | 'subscriptionId'>, result: AttemptResult) {
    await this.#writes.submit({ op: 'attempt', deliveryId: id, subscriptionId, at: Date.now(), result })
  }

  async listDeliveries ({ limit, subscriptionId, before }: DeliveryQuery) {
    return guard(() => this.#sql.get<{}, DeliveryReportRow>(`SELECT d.*, s.url FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE (@subscription IS NULL OR d.subscription_id = ${opaqueInteger('@subscription')})
        AND (@before IS NULL OR d.id < (SELECT b.id FROM webhook_deliveries b WHERE b.message_id = @before
          AND (@subscription IS NULL OR b.subscription_id = ${opaqueInteger('@subscription')})))
      ORDER BY d.id DESC LIMIT ${opaqueInteger('@limit')}`).all({ subscription: subscriptionId ?? null, before: before ?? null, limit }).map(toDeliveryReport))
  }

  async redeliver (subscriptionId: number, messageId: string) {
    const now = Date.now()
    const { changes } = guard(() => this.#sql.get(`UPDATE webhook_deliveries
      SET delivered_at = NULL, failed_at = NULL, locked_until = NULL, next_attempt_at = ?, redelivered_at = ?
      WHERE subscription_id = ? AND message_id = ?
        AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL)`).run(now, now, subscriptionId, messageId))
    return changes > 0
  }

  async backlog () {
    const rows = guard(() => this.#sql.get<[], { subscription_id: bigint, n: bigint }>(`SELECT subscription_id, count(*) AS n
      FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL GROUP BY subscription_id`).all())
    return new Map(rows.map((row) => [Number(row.subscription_id), Number(row.n)]))
  }
}
