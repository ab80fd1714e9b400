import type Database from 'better-sqlite3'
import { subscriptionColumns, toSubscription } from '../rows.js'
import type { SubscriptionRow } from '../rows.js'
import type { NewSubscription, Subscription, SubscriptionChanges } from '../store.js'
import { eventTypesText } from '../../contract/webhook.js'
import { changedColumns, disabledNotices } from '../subscription-changes.js'
import { CHOSE_TYPE } from './outbox.js'
import { Statements } from './connection.js'

/**
 * Every write to subscriptions and to their deliveries outside the dispatcher's claims and outcomes,
 * run by the write queue's runner (on a file, the writer thread: the connections that serve and that
 * dispatch only read). Each answers plain data, so that it crosses back by postMessage.
 */
export function prepareSubscriptionWrites (db: Database.Database) {
  const sql = new Statements(db)
  const current = (id: number) => sql.get<[number], SubscriptionRow>(`SELECT ${subscriptionColumns()} FROM webhook_subscriptions s WHERE s.id = ?`).get(id)
  return {
    addSubscription ({ url, secret, description = null, operator, owner = null, events = null, filter = null, maxPerSecond = null, maxForOwner }: NewSubscription): Subscription | undefined {
      // One statement: the count and the insert cannot interleave with another add.
      const row = sql.get<{}, SubscriptionRow>(`INSERT INTO webhook_subscriptions (url, secret, description, operator, owner, event_types, filter, max_per_second, created_at)
        SELECT @url, @secret, @description, @operator, @owner, @events, @filter, @maxPerSecond, @now
        WHERE @max IS NULL OR (SELECT count(*) FROM webhook_subscriptions WHERE owner = @owner AND removed_at IS NULL) < @max
        RETURNING *, 0 AS backlog`).get({
        url, secret, description, operator: operator ? 1 : 0, owner, events: eventTypesText(events), filter, maxPerSecond, now: Date.now(), max: maxForOwner ?? null
      })
      return row === undefined ? undefined : toSubscription(row)
    },
    updateSubscription (id: number, changes: SubscriptionChanges): Subscription | undefined {
      const row = sql.get<[number], SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE id = ? AND removed_at IS NULL').get(id)
      if (row === undefined) return undefined
      const now = Date.now()
      const { columns, enabling } = changedColumns(toSubscription(row), changes, now)
      if (columns.length > 0) {
        sql.get(`UPDATE webhook_subscriptions SET ${columns.map(([name]) => `${name} = ?`).join(', ')} WHERE id = ?`).run(...columns.map(([, value]) => value), id)
      }
      if (enabling) {
        sql.get(`UPDATE webhook_deliveries SET next_attempt_at = ?, locked_until = NULL
          WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      }
      return toSubscription(current(id)!)
    },
    recover (subscriptionId: number, since: number): number {
      const now = Date.now()
      return sql.get(`UPDATE webhook_deliveries
        SET failed_at = NULL, locked_until = NULL, next_attempt_at = ?, redelivered_at = ?
        WHERE subscription_id = ? AND created_at >= ? AND delivered_at IS NULL AND (failed_at IS NOT NULL OR last_error IS NOT NULL)
          AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL)`).run(now, now, subscriptionId, since).changes
    },
    disableFailing (failingBefore: number, now: number): Subscription[] {
      const rows = sql.get<[number, number], SubscriptionRow>(`UPDATE webhook_subscriptions SET disabled_at = ?
        WHERE removed_at IS NULL AND disabled_at IS NULL AND failing_since <= ? RETURNING *`).all(now, failingBefore)
      const disabled = rows.map(toSubscription)
      for (const notice of disabledNotices(disabled, now)) {
        sql.get(`INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at, event_type)
          SELECT ?, id, 0, ?, ?, ?, 'webhook.disabled' FROM webhook_subscriptions
          WHERE removed_at IS NULL AND id <> ? AND (owner IS NULL OR owner = ?) AND ${CHOSE_TYPE}`)
          .run(notice.messageId, notice.payload, now, now, notice.subscription.id, notice.subscription.owner, ' webhook.disabled ')
      }
      return disabled
    },
    removeSubscription (id: number): boolean {
      const now = Date.now()
      const { changes } = sql.get('UPDATE webhook_subscriptions SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(now, id)
      sql.get(`UPDATE webhook_deliveries SET failed_at = ?, last_error = 'subscription removed'
        WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      return changes === 1
    },
    rotateSecret (id: number, secret: string, graceMs: number): Subscription | undefined {
      const row = sql.get<unknown[], SubscriptionRow>(`UPDATE webhook_subscriptions
        SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?
        WHERE id = ? AND removed_at IS NULL RETURNING *`).get(Date.now() + graceMs, secret, id)
      return row === undefined ? undefined : toSubscription(row)
    },
    redeliver (subscriptionId: number, messageId: string): boolean {
      const now = Date.now()
      return sql.get(`UPDATE webhook_deliveries
        SET delivered_at = NULL, failed_at = NULL, locked_until = NULL, next_attempt_at = ?, redelivered_at = ?
        WHERE subscription_id = ? AND message_id = ?
          AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE removed_at IS NULL)`).run(now, now, subscriptionId, messageId).changes > 0
    }
  }
}

export type SubscriptionWrites = ReturnType<typeof prepareSubscriptionWrites>
