import type { FastifyInstance } from 'fastify'
import { operation } from '../contract/document.js'
import { NotFound } from '../contract/errors.js'
import type { DeliveryReport } from '../store/store.js'
import { visibleSubscription } from './webhook-owners.js'

function deliveryView (delivery: DeliveryReport) {
  return {
    id: delivery.messageId,
    type: delivery.type,
    ...(delivery.plantId !== null && { plantId: delivery.plantId }),
    state: delivery.state,
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null
  }
}

/** A subscription's events (scope webhooks:manage, the caller's own subscriptions): listed, redelivered, recovered after an outage. */
export default async function webhookDeliveryRoutes (app: FastifyInstance) {
  const { store } = app

  app.route({
    ...operation('listWebhookDeliveries'),
    handler: async (request, reply) => {
      const { id } = await visibleSubscription(store, request)
      const { limit, after } = request.query as { limit: number, after?: string }
      // One more than asked tells whether a next page exists.
      const deliveries = await store.webhooks.listDeliveries({ subscriptionId: id, limit: limit + 1, before: after })
      const page = deliveries.slice(0, limit)
      if (deliveries.length > limit) {
        reply.header('link', `</webhooks/${id}/deliveries?${new URLSearchParams({ limit: String(limit), after: page.at(-1)!.messageId })}>; rel="next"`)
      }
      return page.map(deliveryView)
    }
  })

  app.route({
    ...operation('redeliverWebhookEvent'),
    handler: async (request, reply) => {
      const { id } = await visibleSubscription(store, request)
      const { eventId } = request.params as { eventId: string }
      if (!await store.webhooks.redeliver(id, eventId)) throw new NotFound(`no event ${eventId} for webhook subscription ${id}`)
      return reply.code(202).send()
    }
  })

  app.route({
    ...operation('recoverWebhook'),
    handler: async (request, reply) => {
      const { id } = await visibleSubscription(store, request)
      const { since } = request.body as { since: string }
      // The schema's date-time format has checked it.
      const recovered = await store.webhooks.recover(id, new Date(since))
      return reply.code(202).send({ recovered })
    }
  })
}
