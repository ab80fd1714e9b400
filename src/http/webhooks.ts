import fp from 'fastify-plugin'
import type { DatabaseUrl } from '../config/config.js'
import type { Dispatcher, DispatcherOptions } from '../webhooks/dispatcher.js'
import { DispatcherThread } from '../webhooks/thread/dispatcher-thread.js'

/**
 * Runs the webhook dispatcher beside the server as `app.webhooks`: it starts once the app is ready and
 * stops, letting attempts in flight finish, before the requests drain and the store closes. It runs in
 * a thread of its own, so sending deliveries does not slow serving requests; an in-memory SQLite store
 * is private to its connection, so there it runs on the event loop.
 */
export default fp<DispatcherOptions & { database: DatabaseUrl, tracing?: string }>(async (app, { database, tracing, ...options }) => {
  // A database outage is the store plugin's to tell, once; the dispatcher's other lines pass.
  const log = app.storeOutage.gate(app.log.child({ component: 'webhooks' }))
  // The in-process dispatcher is loaded only where it runs: it brings undici, which the main thread
  // otherwise never needs (the thread loads its own).
  const { dialect } = app.store
  const dispatcher: Dispatcher = !dialect.sharedAcrossThreads
    ? new (await import('../webhooks/dispatcher.js')).WebhookDispatcher(app.store.webhooks, log, options)
    : new DispatcherThread({
      database,
      dispatcher: options,
      log,
      hasSubscribers: async () => (await app.store.webhooks.listSubscriptions()).length > 0,
      connectWriter: dialect.connectWriter,
      tracing
    })
  app.store.plants.handOff?.(dispatcher)
  app.decorate('webhooks', dispatcher)
  app.addHook('onReady', async () => { dispatcher.start() })
  app.addHook('preClose', async () => { await dispatcher.stop() })
}, { name: 'webhooks', dependencies: ['store'] })
