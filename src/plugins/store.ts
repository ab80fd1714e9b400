import fp from 'fastify-plugin'
import type { DatabaseUrl } from '../config.js'
import { openStore } from '../store/open-store.js'

/** Opens the configured store as `app.store` and closes it after the server has drained. */
export default fp<{ database: DatabaseUrl }>(async (app, { database }) => {
  const store = await openStore(database, {
    onPoolError: (error) => app.log.warn({ err: error }, 'database connection lost; reconnecting on demand')
  })
  app.decorate('store', store)
  app.addHook('onClose', async () => { await store.close() })
}, { name: 'store' })
