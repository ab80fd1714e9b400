import fp from 'fastify-plugin'
import { WebhookDispatcher } from '../webhooks/dispatcher.js'
import type { DispatcherOptions } from '../webhooks/dispatcher.js'

/**
 * Runs the webhook dispatcher beside the server as `app.webhooks`: it starts once the app is ready and
 * stops, letting attempts in flight finish, before the requests drain and the store closes.
 */
export default fp<DispatcherOptions>(async (app, options) => {
  const dispatcher = new WebhookDispatcher(app.store.webhooks, app.log.child({ component: 'webhooks' }), options)
  app.decorate('webhooks', dispatcher)
  app.addHook('onReady', async () => { dispatcher.start() })
  app.addHook('preClose', async () => { await dispatcher.stop() })
}, { name: 'webhooks', dependencies: ['store'] })
