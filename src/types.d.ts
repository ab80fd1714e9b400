import type { Principal } from './auth/jwt.js'
import type { Store } from './store/store.js'
import type { OutageLog } from './telemetry/outage-log.js'
import type { Dispatcher } from './webhooks/dispatcher.js'
import type { EventFeed } from './events/feed.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
    /** Tells a database outage once when it begins and once when it ends (telemetry/outage-log.ts). */
    storeOutage: OutageLog
    webhooks: Dispatcher
    /** The event log's reader for the streams (http/events.ts). */
    events: EventFeed
    /** True from the start of close (SIGTERM) until the process ends (http/draining.ts). */
    draining: boolean
  }
  interface FastifyContextConfig {
    /** The scope a token needs for this route; routes without one need no token. */
    scope?: string
    /** A stream ticket (`?ticket=`) may stand in for the bearer token (GET /events). */
    acceptsTicket?: boolean
    /** Answers requests while the server drains, rather than the 503 every other route gives (http/draining.ts). */
    answersWhileDraining?: boolean
    /** Requests this one counts as against the per-token rate limit, once its body is read (a batch: its operations). */
    requestsWorth?: (body: unknown) => number
  }
  interface FastifyRequest {
    /** Who the request acts as, set by the auth plugin (null on routes that need no token). */
    principal: Principal | null
    /** Counted in plantstore_http_requests_in_flight and not yet answered (router failures skip the onRequest hooks). */
    countedInFlight: boolean
  }
}
