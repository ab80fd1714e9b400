import type { DeliveredType, EventType } from './events.js'

/**
 * The Standard Webhooks envelope a subscription that chose its events receives: `{"type", "timestamp",
 * "data"}`, the data as the event log holds it (JSON text, ids with every digit).
 */
export function envelopeJson (type: DeliveredType, timestamp: string, data: string): string {
  return `{"type":"${type}","timestamp":"${timestamp}","data":${data}}`
}

/** The subscription's chosen types as the store keeps them (space-separated), and back. */
export const eventTypesText = (events: readonly EventType[] | null | undefined): string | null =>
  events === null || events === undefined ? null : [...new Set(events)].join(' ')
export const eventTypesOf = (text: string | null): EventType[] | null =>
  text === null ? null : text.split(' ') as EventType[]

/** enabled: delivered to; disabled (by its owner, or after failing too long): nothing is sent, its events are kept. */
export type SubscriptionState = 'enabled' | 'disabled'

/** What a subscription is, as the API shows it (never its secret) and `webhook.disabled` carries it. */
export interface SubscriptionView {
  id: number
  url: string
  description: string | null
  createdAt: string
  events: EventType[] | null
  filter: string | null
  maxPerSecond: number | null
  state: SubscriptionState
  lastSuccessAt: string | null
  consecutiveFailures: number
  lastError: string | null
  backlog?: number
}

/** The same, with times as dates and the backlog null where it was not counted. */
type ViewedSubscription = Omit<SubscriptionView, 'createdAt' | 'lastSuccessAt' | 'backlog'> &
  { createdAt: Date, lastSuccessAt: Date | null, backlog: number | null }

export function subscriptionView (s: ViewedSubscription): SubscriptionView {
  return {
    id: s.id,
    url: s.url,
    description: s.description,
    createdAt: s.createdAt.toISOString(),
    events: s.events,
    filter: s.filter,
    maxPerSecond: s.maxPerSecond,
    state: s.state,
    lastSuccessAt: s.lastSuccessAt?.toISOString() ?? null,
    consecutiveFailures: s.consecutiveFailures,
    lastError: s.lastError,
    ...(s.backlog !== null && { backlog: s.backlog })
  }
}
