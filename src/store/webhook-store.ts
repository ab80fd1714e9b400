export interface Subscription {
  id: number
  url: string
  /** `whsec_…`: signs every delivery to this subscriber. */
  secret: string
  createdAt: Date
}

/** One delivery of one event to one subscriber, as a dispatcher claims it. */
export interface Delivery {
  id: number
  messageId: string
  subscriptionId: number
  url: string
  secret: string
  /** The NewPlant JSON, exactly as it is sent. */
  payload: string
  attempts: number
  createdAt: Date
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

export interface DeliveryReport {
  id: number
  messageId: string
  plantId: bigint
  url: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  lastStatus: number | null
  lastError: string | null
  lastAttemptAt: Date | null
  nextAttemptAt: Date | null
}

/** Webhook subscriptions and the outbox of their deliveries. */
export interface WebhookStore {
  addSubscription (url: string, secret: string): Promise<Subscription>
  listSubscriptions (): Promise<Subscription[]>
  /** Removes a subscriber; its pending deliveries are given up. Answers whether it existed. */
  removeSubscription (id: number): Promise<boolean>
  /**
   * Claims up to `max` due deliveries of one subscriber, oldest due first, as a lease: no other
   * dispatcher (another process or instance) claims them until it ends or an attempt is recorded.
   */
  claim (claim: DeliveryClaim): Promise<Delivery[]>
  /** Records an attempt's outcome; many are written together. A crash may lose one: at least once. */
  recordAttempt (deliveryId: number, result: AttemptResult): Promise<void>
  /** The most recent deliveries, newest first. */
  listDeliveries (limit: number): Promise<DeliveryReport[]>
  /** Undelivered events per subscriber (not given up): subscription id → count. */
  backlog (): Promise<Map<number, number>>
}
