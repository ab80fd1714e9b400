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
  /** Why the newest attempted delivery failed; null when it succeeded, none was attempted, or it was not asked for. */
  lastError: string | null
}

export interface NewSubscription {
  url: string
  secret: string
  description?: string | null
  operator: boolean
  owner?: string | null
  /** Refuse (answer undefined) when the owner holds this many already. */
  maxForOwner?: number
}

export interface SubscriptionQuery {
  /** Only this owner's; undefined: everyone's. */
  owner?: string
  /** Keyset paging: only ids above this one. */
  after?: number
  limit?: number
  /** Fill in each one's `lastError` (a look into its deliveries; the dispatcher's polls need none). */
  withLastError?: boolean
}

/** The secrets that sign a delivery now: the current one, and the previous one during its grace period. */
export function signingSecrets (subscription: Subscription, now = Date.now()): string[] {
  const previous = subscription.previousSecret
  const expires = subscription.previousSecretExpiresAt
  return previous !== null && expires !== null && expires.getTime() > now ? [subscription.secret, previous] : [subscription.secret]
}

/** One delivery of one event to one subscriber, as a dispatcher claims it. */
export interface Delivery {
  id: number
  messageId: string
  subscriptionId: number
  url: string
  /** Every secret that signs it (see signingSecrets). */
  secrets: string[]
  /** Whether the subscription is an operator's (see Subscription.operator). */
  operator: boolean
  /** The NewPlant JSON, exactly as it is sent. */
  payload: string
  attempts: number
  createdAt: Date
  /** Where the give-up clock starts: the event's creation, or its redelivery. */
  since: Date
  /** Until when the claim is this dispatcher's (Unix ms); past it another may send the delivery. */
  leaseUntil: number
}

export interface DeliveryClaim {
  subscriptionId: number
  /** Unix ms. */
  now: number
  /** How long a claimed delivery is ours before another dispatcher may take it. */
  leaseMs: number
  max: number
}

/** What an attempt came to: delivered, or not (with when to try again, or null to give up). */
export interface AttemptResult {
  delivered: boolean
  status: number | null
  error: string | null
  nextAttemptAt: Date | null
}

/** An event's state: not yet tried, delivered, last attempt failed (to be retried), or given up. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'given_up'

export interface DeliveryReport {
  id: number
  messageId: string
  subscriptionId: number
  plantId: bigint
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

/** Webhook subscriptions and the outbox of their deliveries. */
export interface WebhookStore {
  /** Undefined when the owner already holds `maxForOwner` subscriptions. */
  addSubscription (subscription: NewSubscription): Promise<Subscription | undefined>
  /** Subscriptions not removed, oldest first. */
  listSubscriptions (query?: SubscriptionQuery): Promise<Subscription[]>
  getSubscription (id: number): Promise<Subscription | undefined>
  /** Removes a subscriber; its pending deliveries are given up. Answers whether it existed. */
  removeSubscription (id: number): Promise<boolean>
  /** A new secret; the current one keeps signing beside it for `graceMs`. Undefined when no such subscription. */
  rotateSecret (id: number, secret: string, graceMs: number): Promise<Subscription | undefined>
  /**
   * Claims up to `max` due deliveries of one subscriber, oldest due first, as a lease: no other
   * dispatcher (another process or instance) claims them until it ends or an attempt is recorded.
   */
  claim (claim: DeliveryClaim): Promise<Delivery[]>
  /** Records an attempt's outcome; many are written together. A crash may lose one: at least once. */
  recordAttempt (deliveryId: number, result: AttemptResult): Promise<void>
  /** Deliveries, newest first. */
  listDeliveries (query: DeliveryQuery): Promise<DeliveryReport[]>
  /** Makes one event of a subscription due again, with its webhook-id; answers whether it exists. */
  redeliver (subscriptionId: number, messageId: string): Promise<boolean>
  /** Undelivered events per subscriber (not given up): subscription id → count. */
  backlog (): Promise<Map<number, number>>
}
