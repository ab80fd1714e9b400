import { eventTypesOf } from '../contract/webhook.js'
import type { LoggedEvent, Scope, Subscription, TokenRecord } from './store.js'

// Rows as both drivers give them: integers as bigint (better-sqlite3's safeIntegers, pg's int8 parser
// set in postgres/database.ts), times as Unix milliseconds. Each API shape is mapped from its row here only
// (deliveries' in delivery-rows.ts).

export const date = (ms: bigint | null) => (ms === null ? null : new Date(Number(ms)))

export interface TokenRow {
  id: bigint,
  name: string,
  hash: Buffer,
  scopes: string,
  created_at: bigint,
  expires_at: bigint | null,
  revoked_at: bigint | null
  last_used_at: bigint | null
}

export interface SubscriptionRow {
  id: bigint,
  url: string,
  description: string | null,
  secret: string,
  previous_secret: string | null,
  previous_secret_expires_at: bigint | null,
  created_at: bigint,
  /** 1/0 in SQLite, a boolean in PostgreSQL. */
  operator: bigint | boolean
  owner: string | null
  event_types: string | null
  filter: string | null
  max_per_second: bigint | number | null
  disabled_at: bigint | null
  /** Read where a delivery is claimed or handed over (SELECT *). */
  removed_at?: bigint | null
  last_success_at: bigint | null
  last_error: string | null
  consecutive_failures: bigint | number
  failing_since: bigint | null
  /** Selected with the subscription where it is shown (see subscriptionColumns). */
  backlog?: bigint | null
}

/** A subscription's columns, for `FROM webhook_subscriptions s`, with its backlog when asked (counted on the pending deliveries' index). */
export const subscriptionColumns = (withBacklog = true) => withBacklog
  ? `s.*, (SELECT count(*) FROM webhook_deliveries d
    WHERE d.subscription_id = s.id AND d.delivered_at IS NULL AND d.failed_at IS NULL) AS backlog`
  : 's.*'

export function toSubscription (row: SubscriptionRow): Subscription {
  return {
    id: Number(row.id),
    url: row.url,
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: date(row.previous_secret_expires_at),
    createdAt: new Date(Number(row.created_at)),
    operator: row.operator === true || row.operator === 1n,
    owner: row.owner,
    events: eventTypesOf(row.event_types),
    filter: row.filter,
    maxPerSecond: row.max_per_second === null ? null : Number(row.max_per_second),
    state: row.disabled_at === null ? 'enabled' : 'disabled',
    disabledAt: date(row.disabled_at),
    lastSuccessAt: date(row.last_success_at),
    consecutiveFailures: Number(row.consecutive_failures),
    failingSince: date(row.failing_since),
    lastError: row.last_error,
    backlog: row.backlog === undefined || row.backlog === null ? null : Number(row.backlog)
  }
}

/** A token as the store answers it: never its hash. */
export function toToken (row: TokenRow): TokenRecord {
  return {
    id: Number(row.id),
    name: row.name,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: new Date(Number(row.created_at)),
    expiresAt: date(row.expires_at),
    revokedAt: date(row.revoked_at),
    lastUsedAt: date(row.last_used_at)
  }
}

export interface EventRow { sequence: bigint, type: LoggedEvent['type'], message_id: string, data: string, before: string | null, created_at: bigint, trace_parent: string | null }

export const toLoggedEvent = (row: EventRow): LoggedEvent =>
  ({ sequence: row.sequence, type: row.type, messageId: row.message_id, data: row.data, before: row.before, createdAt: Number(row.created_at), traceParent: row.trace_parent })
