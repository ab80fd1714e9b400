import type { Spans } from '../lib/trace-context.js'
import type { Delivery } from '../store/store.js'
import type { AttemptOutcome, Sender } from './sender.js'

/**
 * Sends one attempt inside its span when traces are on: the span continues the trace of the request
 * that made the event (its traceparent was stored with it) and links to it, and the request carries
 * the span on as `traceparent`. The host names the subscriber, never its path or query, which may
 * hold a secret.
 */
export function sendTraced (sender: Sender, delivery: Delivery, spans: Spans | undefined, host: string): Promise<AttemptOutcome> {
  if (spans === undefined) return sender.send(delivery)
  const attributes = {
    'http.request.method': 'POST',
    'server.address': host,
    'plantstore.webhook.id': delivery.messageId,
    'plantstore.webhook.subscription': delivery.subscriptionId,
    'plantstore.webhook.attempt': delivery.attempts + 1
  }
  return spans.run('webhook deliver', { kind: 'client', parent: delivery.traceParent, links: [delivery.traceParent], attributes }, async (span) => {
    const outcome = await sender.send(delivery, span.traceparent)
    if (outcome.status !== null) span.set('http.response.status_code', outcome.status)
    if (outcome.error !== null) span.fail(outcome.error)
    return outcome
  })
}
