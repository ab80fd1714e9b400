import type { Store, TokenRecord } from './store/store.js'
import type { WebhookDispatcher } from './webhooks/dispatcher.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
    webhooks: WebhookDispatcher
  }
  interface FastifyContextConfig {
    /** The scope a token needs for this route; routes without one need no token. */
    scope?: string
  }
  interface FastifyRequest {
    /** The authenticated token, set by the auth plugin. */
    token?: TokenRecord
  }
}
