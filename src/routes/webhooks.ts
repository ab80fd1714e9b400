import type { FastifyInstance, FastifyRequest } from 'fastify'
import { operation } from '../contract/document.js'
import { SchemaMismatch, TooManyRequests } from '../contract/errors.js'
import type { EventType } from '../contract/events.js'
import { subscriptionView } from '../contract/webhook.js'
import type { Subscription, SubscriptionChanges } from '../store/store.js'
import { checkWebhookUrl } from '../webhooks/address-policy.js'
import { generateSecret } from '../webhooks/signature.js'
import { parsedFilter } from './query-filter.js'
import webhookDeliveryRoutes from './webhook-deliveries.js'
import { notFound, ownerOf, visibleSubscription } from './webhook-owners.js'

/** How long the secret before a rotation keeps signing beside the new one (docs/webhooks.md). */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000

/** The answers to create and rotate, the only ones that carry the secret (subscriptionView never does). */
const withSecret = (subscription: Subscription) => ({ ...subscriptionView(subscription), secret: subscription.secret })

/**
 * The webhook subscriptions API (scope webhooks:manage): integrators subscribe, rotate secrets,
 * inspect and redeliver their events themselves, each seeing only its own subscriptions (another
 * owner's, or an operator's, is 404 as if it did not exist). URLs are checked for server-side request
 * forgery (address-policy.ts) unless the operator allows private addresses.
 */
export default async function webhookRoutes (app: FastifyInstance, { allowPrivate, maxPerOwner }: { allowPrivate: boolean, maxPerOwner: number }) {
  const { store } = app

  const subscriptionOf = (request: FastifyRequest) => visibleSubscription(store, request)
  await app.register(webhookDeliveryRoutes)

  /** A filter must parse, and needs events: a filtered subscription receives envelopes. */
  function checkFilter (filter: string | null | undefined, events: EventType[] | null | undefined) {
    if (parsedFilter(filter, 'body/filter') !== undefined && (events === null || events === undefined)) {
      throw new SchemaMismatch('body/filter needs events: a filtered subscription receives envelopes of the types it names')
    }
  }

  app.route({
    ...operation('createWebhook'),
    handler: async (request, reply) => {
      const body = request.body as { url: string, description?: string, events?: EventType[] | null, filter?: string | null, maxPerSecond?: number | null }
      checkFilter(body.filter, body.events)
      const url = await checkWebhookUrl(body.url, allowPrivate)
      const subscription = await store.webhooks.addSubscription({
        url,
        secret: generateSecret(),
        description: body.description ?? null,
        events: body.events ?? null,
        filter: body.filter ?? null,
        maxPerSecond: body.maxPerSecond ?? null,
        operator: false,
        owner: ownerOf(request).key,
        maxForOwner: maxPerOwner
      })
      if (subscription === undefined) {
        throw new TooManyRequests(60, `this token holds ${maxPerOwner} webhook subscriptions, the most one owner may hold; delete one first`)
      }
      return reply.code(201).header('location', `/webhooks/${subscription.id}`).send(withSecret(subscription))
    }
  })

  app.route({
    ...operation('listWebhooks'),
    handler: async (request, reply) => {
      const { limit, after } = request.query as { limit: number, after?: bigint }
      const owner = ownerOf(request)
      // One more than asked tells whether a next page exists; `after` is validated as a non-negative int64.
      const subscriptions = await store.webhooks.listSubscriptions({
        owner: owner.admin ? undefined : owner.key, after: Math.min(Number(after ?? 0n), Number.MAX_SAFE_INTEGER), limit: limit + 1, withBacklog: true
      })
      const page = subscriptions.slice(0, limit)
      if (subscriptions.length > limit) reply.header('link', `</webhooks?limit=${limit}&after=${page.at(-1)!.id}>; rel="next"`)
      return page.map(subscriptionView)
    }
  })

  app.route({
    ...operation('getWebhook'),
    handler: async (request) => subscriptionView(await subscriptionOf(request))
  })

  app.route({
    ...operation('updateWebhook'),
    handler: async (request) => {
      const current = await subscriptionOf(request)
      const changes = request.body as SubscriptionChanges
      checkFilter(changes.filter === undefined ? current.filter : changes.filter, changes.events === undefined ? current.events : changes.events)
      const { id } = current
      const updated = await store.webhooks.updateSubscription(id, changes)
      if (updated === undefined) throw notFound(BigInt(id))
      return subscriptionView(updated)
    }
  })

  app.route({
    ...operation('deleteWebhook'),
    handler: async (request, reply) => {
      const { id } = await subscriptionOf(request)
      if (!await store.webhooks.removeSubscription(id)) throw notFound(BigInt(id))
      return reply.code(204).send()
    }
  })

  app.route({
    ...operation('rotateWebhookSecret'),
    handler: async (request) => {
      const { id } = await subscriptionOf(request)
      const rotated = await store.webhooks.rotateSecret(id, generateSecret(), ROTATION_GRACE_MS)
      if (rotated === undefined) throw notFound(BigInt(id))
      return withSecret(rotated)
    }
  })
}
