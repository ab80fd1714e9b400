import type Database from 'better-sqlite3'
import type { GroupCommit } from '../group-commit.js'
import { subscriptionColumns, toSubscription } from '../rows.js'
import { toDeliveries, toDeliveryReport } from '../delivery-rows.js'
import type { SubscriptionRow } from '../rows.js'
import type { DeliveryReportRow, DeliveryRow } from '../delivery-rows.js'
import type { AttemptResult, Delivery, DeliveryClaim, DeliveryQuery, HandedDeliveries, NewSubscription, Subscription, SubscriptionChanges, SubscriptionQuery, WebhookStore } from '../store.js'
import { guard, opaqueInteger, Statements } from './connection.js'
import type { CallOf, WriteJob, WriteResult } from './write-jobs.js'
import type { SubscriptionWrites } from './subscription-writes.js'

/**
 * Subscriptions and the outbox on SQLite. Reads run on this connection; every write goes through the
 * write queue with the creates (subscription-writes.ts, and the dispatcher's claims and outcomes), so on
 * a file the writer thread makes it, many to a transaction and off the event loop.
 */
export class SqliteWebhooks implements WebhookStore {
  readonly #sql: Statements
  readonly #writes: GroupCommit<WriteJob, WriteResult>

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>) {
    this.#sql = new Statements(db)
    this.#writes = writes
  }

  async addSubscription (subscription: NewSubscription) {
    return await this.#write({ method: 'addSubscription', args: [subscription] }) as Subscription | undefined
  }

  async updateSubscription (id: number, changes: SubscriptionChanges) {
    return await this.#write({ method: 'updateSubscription', args: [id, changes] }) as Subscription | undefined
  }

  async recover (subscriptionId: number, since: Date) {
    return await this.#write({ method: 'recover', args: [subscriptionId, since.getTime()] }) as number
  }

  async disableFailing (failingBefore: number, now = Date.now()) {
    // Asked every poll: a read first, so that nothing is written while nobody is failing.
    const failing = guard(() => this.#sql.get<[number], number>(`SELECT 1 FROM webhook_subscriptions
      WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= ? LIMIT 1`).get(failingBefore))
    if (failing === undefined) return []
    return await this.#write({ method: 'disableFailing', args: [failingBefore, now] }) as Subscription[]
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
    return await this.#write({ method: 'removeSubscription', args: [id] }) as boolean
  }

  async rotateSecret (id: number, secret: string, graceMs: number) {
    return await this.#write({ method: 'rotateSecret', args: [id, secret, graceMs] }) as Subscription | undefined
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
    return await this.#write({ method: 'redeliver', args: [subscriptionId, messageId] }) as boolean
  }

  async backlog () {
    const rows = guard(() => this.#sql.get<[], { subscription_id: bigint, n: bigint }>(`SELECT subscription_id, count(*) AS n
      FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL GROUP BY subscription_id`).all())
    return new Map(rows.map((row) => [Number(row.subscription_id), Number(row.n)]))
  }

  #write (call: CallOf<SubscriptionWrites>) {
    return this.#writes.submit({ op: 'subscriptions', call })
  }
}
