import { GroupCommit } from '../group-commit.js'
import { subscriptionColumns, toDelivery, toDeliveryReport, toSubscription } from '../rows.js'
import type { DeliveryReportRow, DeliveryRow, SubscriptionRow } from '../rows.js'
import type { AttemptResult, DeliveryClaim, DeliveryQuery, NewSubscription, SubscriptionQuery, WebhookStore } from '../store.js'
import type { PostgresDatabase } from './database.js'

/**
 * Claims one subscriber's due deliveries: FOR UPDATE SKIP LOCKED, so two dispatchers (two instances)
 * never claim one row; the claim is a lease (`locked_until`), and the subscriber's URL and current
 * secret come with it. $1 subscription, $2 now, $3 lease end, $4 most rows.
 */
const claimSql = `
WITH due AS (
  SELECT id FROM webhook_deliveries
  WHERE subscription_id = $1 AND delivered_at IS NULL AND failed_at IS NULL
    AND next_attempt_at <= $2 AND (locked_until IS NULL OR locked_until <= $2)
  ORDER BY next_attempt_at, id
  LIMIT $4
  FOR UPDATE SKIP LOCKED
)
UPDATE webhook_deliveries d SET locked_until = $3
FROM due WHERE d.id = due.id
RETURNING d.id, d.message_id, d.subscription_id, d.payload, d.attempts, d.created_at, d.redelivered_at`

/** Many attempts' outcomes in one statement: $1 ids, $2 statuses, $3 errors, $4 times, $5 delivered, $6 given up, $7 next attempts. */
const attemptsSql = `
UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = NULL, last_status = o.status,
  last_error = o.error, last_attempt_at = o.at,
  delivered_at = CASE WHEN o.delivered THEN o.at END, failed_at = CASE WHEN o.given_up THEN o.at END,
  next_attempt_at = coalesce(o.next_at, d.next_attempt_at)
FROM unnest($1::bigint[], $2::int[], $3::text[], $4::bigint[], $5::bool[], $6::bool[], $7::bigint[])
  AS o (id, status, error, at, delivered, given_up, next_at)
WHERE d.id = o.id`

interface Attempt { deliveryId: number, at: number, result: AttemptResult }

/** Subscriptions and the outbox on PostgreSQL; attempt outcomes are written many to a statement. */
export class PostgresWebhooks implements WebhookStore {
  readonly #db: PostgresDatabase
  readonly #attempts: GroupCommit<Attempt, null>

  constructor (db: PostgresDatabase) {
    this.#db = db
    this.#attempts = new GroupCommit((attempts: Attempt[]) => this.#recordAttempts(attempts), { maxInFlight: 2 })
  }

  async addSubscription ({ url, secret, description = null, operator, owner = null, maxForOwner }: NewSubscription) {
    return this.#db.transaction(async (client) => {
      // Two instances adding for one owner at once take turns, so the cap holds across instances.
      if (owner !== null) await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook-owner ${owner}`])
      const { rows: [row] } = await client.query<SubscriptionRow>(`INSERT INTO webhook_subscriptions (url, secret, description, operator, owner, created_at)
        SELECT $1, $2, $3, $4, $5, $6 WHERE $7::int IS NULL
          OR (SELECT count(*) FROM webhook_subscriptions WHERE owner = $5 AND removed_at IS NULL) < $7
        RETURNING *`, [url, secret, description, operator, owner, Date.now(), maxForOwner ?? null])
      return row === undefined ? undefined : toSubscription(row)
    })
  }

  async listSubscriptions ({ owner, after, limit, withLastError = false }: SubscriptionQuery = {}) {
    return (await this.#db.query<SubscriptionRow>(`SELECT ${subscriptionColumns(withLastError)} FROM webhook_subscriptions s
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

  async claim ({ subscriptionId, now, leaseMs, max }: DeliveryClaim) {
    const leaseUntil = now + leaseMs
    const rows = await this.#db.query<DeliveryRow>(claimSql, [subscriptionId, now, leaseUntil, max], 'webhooks.claim')
    if (rows.length === 0) return []
    // Read after the claim, so a secret rotated meanwhile already signs these deliveries.
    const [subscription] = await this.#db.query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = $1', [subscriptionId])
    if (subscription === undefined) return []
    return rows.map((row) => toDelivery(row, toSubscription(subscription), leaseUntil)).sort((a, b) => a.id - b.id)
  }

  async recordAttempt (deliveryId: number, result: AttemptResult) {
    await this.#attempts.submit({ deliveryId, at: Date.now(), result })
  }

  async #recordAttempts (attempts: Attempt[]) {
    await this.#db.query(attemptsSql, [
      attempts.map((a) => a.deliveryId),
      attempts.map((a) => a.result.status),
      attempts.map((a) => a.result.error),
      attempts.map((a) => a.at),
      attempts.map((a) => a.result.delivered),
      attempts.map((a) => !a.result.delivered && a.result.nextAttemptAt === null),
      attempts.map((a) => a.result.nextAttemptAt?.getTime() ?? null)
    ], 'webhooks.attempts')
    return attempts.map(() => null)
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
