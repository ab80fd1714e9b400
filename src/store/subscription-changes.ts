import { newMessageId } from '../contract/message-id.js'
import { envelopeJson, eventTypesText, subscriptionView } from '../contract/webhook.js'
import { filterTreeJson, parseFilter } from '../contract/filter.js'
import type { Subscription, SubscriptionChanges } from './store.js'

/** A subscription's filter as the tree PostgreSQL evaluates (checked by the route before it is stored). */
export const filterTreeOf = (filter: string | null | undefined): string | null => {
  const tree = filter === null || filter === undefined ? undefined : parseFilter(filter)
  return tree === undefined ? null : filterTreeJson(tree)
}

/**
 * The columns a change of a subscription writes, as both dialects write them, and whether it enables a
 * disabled one (which starts its health afresh: the disable clock must not fire again at once).
 */
export function changedColumns (current: Subscription, changes: SubscriptionChanges, now: number, withTree = false) {
  const columns: Array<[string, string | number | null]> = []
  if (changes.events !== undefined) columns.push(['event_types', eventTypesText(changes.events)])
  if (changes.filter !== undefined) {
    columns.push(['filter', changes.filter])
    if (withTree) columns.push(['filter_tree', filterTreeOf(changes.filter)])
  }
  if (changes.description !== undefined) columns.push(['description', changes.description])
  if (changes.maxPerSecond !== undefined) columns.push(['max_per_second', changes.maxPerSecond])
  const enabling = changes.state === 'enabled' && current.state === 'disabled'
  if (enabling) columns.push(['disabled_at', null], ['failing_since', null], ['consecutive_failures', 0])
  if (changes.state === 'disabled' && current.state === 'enabled') columns.push(['disabled_at', now])
  return { columns, enabling }
}

/** The `webhook.disabled` event of each disabled subscription: its message id and envelope. */
export function disabledNotices (disabled: Subscription[], now: number) {
  const timestamp = new Date(now).toISOString()
  return disabled.map((subscription) => ({
    subscription,
    messageId: newMessageId(),
    payload: envelopeJson('webhook.disabled', timestamp, JSON.stringify(subscriptionView({ ...subscription, backlog: null })))
  }))
}
