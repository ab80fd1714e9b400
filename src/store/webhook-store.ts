import type { DeliveredType, EventType } from '../contract/events.js'
import type { SubscriptionState } from '../contract/webhook.js'
import type { DeliveryClaimStore } from './delivery-claims.js'

export type { SubscriptionState } from '../contract/webhook.js'

export interface Subscription {
  id: number
  url: string
  description: string | null
  /** `whsec_…`: signs every delivery to this subscriber. */
  secret: string
  /** The secret before the last rotation, while its grace period lasts (deliveries carry both signatures). */
  previousSecret: string | null
  previousSecretExpiresAt: Date | null
  createdAt: Date
  /** Added by an operator (the CLI), who may target any URL; else by an integrator over HTTP. */
  operator: boolean
  /** Who made it over HTTP (`token:<id>`, `jwt:<iss>|<sub>`); null for an operator's. */
  owner: string | null
  /** The types it receives as Standard Webhooks envelopes; null: the original newPlant body, on creates only. */
  events: EventType[] | null
  /** Only the events of plants that match (GET /plants's grammar), and plant.left when one stops matching; null: all. */
  filter: string | null
  /** Deliveries a second at most, all dispatchers together; null: as fast as it answers. */
  maxPerSecond: number | null
  state: SubscriptionState
  disabledAt: Date | null
  lastSuccessAt: Date | null
  /** Attempts failed since the last success. */
  consecutiveFailures: number
  /** The first failure since the last success (null while the last attempt succeeded): the disable clock. */
  failingSince: Date | null
  /** Why the newest attempt failed; null when it succeeded or none was made. */
  lastError: string | null
  /** Events not yet delivered nor given up; null unless asked for (SubscriptionQuery.withBacklog). */
  backlog: number | null
}

/** What `PATCH /webhooks/{id}` may change; absent members stay as they are. */
export interface SubscriptionChanges {
  events?: EventType[] | null
  filter?: string | null
  description?: string | null
  maxPerSecond?: number | null
  /** Enabling starts the health afresh and makes every pending event due at once. */
  state?: SubscriptionState
}

export interface NewSubscription {
  url: string
  secret: string
  description?: string | null
  operator: boolean
  owner?: string | null
  events?: EventType[] | null
  filter?: string | null
  maxPerSecond?: number | null
  /** Refuse (answer undefined) when the owner holds this many already. */
  maxForOwner?: number
}

export interface SubscriptionQuery {
  /** Only this owner's; undefined: everyone's. */
  owner?: string
  /** Keyset paging: only ids above this one. */
  after?: number
  limit?: number
  /** Fill in each one's `backlog` (a count of its pending deliveries; the dispatcher's polls need none). */
  withBacklog?: boolean
}

/** The secrets that sign a delivery now: the current one, and the previous one during its grace period. */
export function signingSecrets (subscription: Subscription, now = Date.now()): string[] {
  const previous = subscription.previousSecret
  const expires = subscription.previousSecretExpiresAt
  return previous !== null && expires !== null && expires.getTime() > now ? [subscription.secret, previous] : [subscription.secret]
}

/** An event's state: not yet tried, delivered, last attempt failed (to be retried), or given up. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'given_up'

export interface DeliveryReport {
  id: number
  messageId: string
  subscriptionId: number
  type: DeliveredType
  /** Null for an operational event (webhook.disabled). */
  plantId: bigint | null
  url: string
  state: DeliveryState
  attempts: number
  lastStatus: number | null
  lastError: string | null
  lastAttemptAt: Date | null
  nextAttemptAt: Date | null
  createdAt: Date
}

export interface DeliveryQuery {
  limit: number
  /** Only this subscription's. */
  subscriptionId?: number
  /** Keyset paging, newest first: only deliveries older than this one (its webhook-id). */
  before?: string
}

/** Webhook subscriptions and the outbox of their deliveries (a dispatcher's side of it: DeliveryClaimStore). */
export interface WebhookStore extends DeliveryClaimStore {
  /** Undefined when the owner already holds `maxForOwner` subscriptions. */
  addSubscription (subscription: NewSubscription): Promise<Subscription | undefined>
  /** Subscriptions not removed, oldest first. */
  listSubscriptions (query?: SubscriptionQuery): Promise<Subscription[]>
  getSubscription (id: number): Promise<Subscription | undefined>
  /** Removes a subscriber; its pending deliveries are given up. Answers whether it existed. */
  removeSubscription (id: number): Promise<boolean>
  /** A new secret; the current one keeps signing beside it for `graceMs`. Undefined when no such subscription. */
  rotateSecret (id: number, secret: string, graceMs: number): Promise<Subscription | undefined>
  /** Deliveries, newest first. */
  listDeliveries (query: DeliveryQuery): Promise<DeliveryReport[]>
  /** Makes one event of a subscription due again, with its webhook-id; answers whether it exists. */
  redeliver (subscriptionId: number, messageId: string): Promise<boolean>
  /** Changes a subscription; undefined when there is none. */
  updateSubscription (id: number, changes: SubscriptionChanges): Promise<Subscription | undefined>
  /** Makes the subscription's failed and given-up events created since `since` due at once (same webhook-id); answers how many. */
  recover (subscriptionId: number, since: Date): Promise<number>
  /**
   * Disables every enabled subscription failing since before `failingBefore`, and in the same
   * transaction sends `webhook.disabled` to the subscriptions of the same owner (and the operator's)
   * that asked for it. Answers the ones it disabled: of several dispatchers, only one gets each.
   */
  disableFailing (failingBefore: number, now?: number): Promise<Subscription[]>
  /**
   * Retention of delivery records, one short batch: of up to `max` records after id `after` (oldest
   * first), deletes those delivered or given up before `before`, and gives up the pending ones of a
   * disabled subscription created before it. `next` is where the next batch starts; undefined when the
   * pass is over (it reached records created after `before`, or the end).
   */
  pruneDeliveries (before: number, max: number, after: number): Promise<{ deleted: number, next: number | undefined }>
  /** Undelivered events per subscriber (not given up): subscription id → count. */
  backlog (): Promise<Map<number, number>>
}
