import type { HandedDeliveries } from './delivery-handoff.js'

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
  /** The W3C traceparent of the request that made its event, when traces were on. */
  traceParent: string | null
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
  /** The subscription's throttle: claims count against its deliveries-per-second window in the store. */
  perSecond?: number | null
}

/** What an attempt came to: delivered, or not (with when to try again, or null to give up). */
export interface AttemptResult {
  delivered: boolean
  status: number | null
  error: string | null
  nextAttemptAt: Date | null
}

/** A dispatcher's side of the outbox: claims under a lease, handed deliveries, and attempts' outcomes. */
export interface DeliveryClaimStore {
  /**
   * Claims up to `max` due deliveries of one subscriber, oldest due first, as a lease: no other
   * dispatcher (another process or instance) claims them until it ends or an attempt is recorded.
   */
  claim (claim: DeliveryClaim): Promise<Delivery[]>
  /** One subscriber's deliveries handed over by creates (DeliveryHandoff), with its URL and secrets read now, as a claim reads them. */
  adopt (subscriptionId: number, handed: HandedDeliveries): Promise<Delivery[]>
  /** Gives back the claims of deliveries a stopping dispatcher will not send, so any dispatcher may claim them at once. */
  release (deliveries: Array<Pick<Delivery, 'id' | 'leaseUntil'>>): Promise<void>
  /**
   * Records an attempt's outcome, and the subscription's health with it; many are written together.
   * A crash may lose one: at least once.
   */
  recordAttempt (delivery: Pick<Delivery, 'id' | 'subscriptionId'>, result: AttemptResult): Promise<void>
}
