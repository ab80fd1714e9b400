/** A claimed outbox row (numbers where a create handed it over as JSON); the subscriber's URL and secret are read with the claim. */
export interface DeliveryRow {
  id: bigint | number,
  message_id: string,
  subscription_id: bigint | number,
  payload: string,
  attempts: bigint | number,
  created_at: bigint | number,
  redelivered_at: bigint | null,
  trace_parent: string | null
}

/** Deliveries a create wrote already claimed, until `leaseUntil`, for the dispatcher it hands them to. */
export interface HandedDeliveries {
  leaseUntil: number
  rows: DeliveryRow[]
}

/**
 * A dispatcher of this process that takes a create's deliveries straight from it: the store writes them
 * already claimed for it (leased, as a claim would) and hands them over, so they need no claim. It names
 * the subscriptions it takes them for now; the others' deliveries wait in the outbox for a claim. Were
 * the handed ones never sent (the process ended), their lease lapses and any dispatcher claims them.
 */
export interface DeliveryHandoff {
  /** Subscriptions whose new deliveries it takes now. */
  readonly subscriptions: readonly number[]
  /** How long a handed delivery is its alone, as a claim's lease. */
  readonly leaseMs: number
  take (handed: HandedDeliveries): void
}
