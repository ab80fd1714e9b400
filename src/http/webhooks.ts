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
  app.store.plants.handOff(dispatcher)
  app.decorate('webhooks', dispatcher)
  // This process's commits reach the dispatcher at once (other processes' at its next poll). Until it
  // starts, there is nothing to tell: it reads the subscribers as it starts.
  let started = false
  const unsubscribe = app.store.commits.subscribe((commit) => {
    if (!started) return
    // The answer to a subscription's change waits until the dispatcher has read it.
    if (commit.kind === 'subscriptions') {
      return dispatcher.refresh().catch(() => {}).then(() => { if (commit.deliveriesDue) dispatcher.wake() })
    }
    if (commit.kind === 'deliveries' || commit.deliveriesWaiting) dispatcher.wake()
  })
  app.addHook('onReady', async () => {
    dispatcher.start()
    started = true
  })
  app.addHook('preClose', async () => {
    unsubscribe()
    await dispatcher.stop()
  })
}, { name: 'webhooks', dependencies: ['store'] })
