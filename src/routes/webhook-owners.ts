import type { FastifyRequest } from 'fastify'
import { NotFound } from '../contract/errors.js'
import type { Store, Subscription } from '../store/store.js'

export const notFound = (id: bigint) => new NotFound(`webhook subscription ${id} not found`)

/** Whose subscriptions a request may see: its own (the token, or the JWT's issuer and subject), or with webhooks:admin everyone's. */
export function ownerOf (request: FastifyRequest): { key: string, admin: boolean } {
  const principal = request.principal!
  return { key: principal.key, admin: principal.scopes.includes('webhooks:admin') }
}

/**
 * The subscription the request's path names, when the caller may see it; else 404, as if it did not
 * exist. An id past what a subscription id can be is simply none.
 */
export async function visibleSubscription (store: Store, request: FastifyRequest): Promise<Subscription> {
  const { id } = request.params as { id: bigint }
  const subscription = id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? await store.webhooks.getSubscription(Number(id)) : undefined
  const owner = ownerOf(request)
  if (subscription === undefined || (!owner.admin && subscription.owner !== owner.key)) throw notFound(id)
  return subscription
}
