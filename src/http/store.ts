import fp from 'fastify-plugin'
import type { DatabaseUrl } from '../config/config.js'
import { instrumentStore } from '../telemetry/metrics.js'
import type { Metrics } from '../telemetry/metrics.js'
import type { Tracing } from '../telemetry/tracing.js'
import { openStore } from '../store/open-store.js'

/** Opens the configured store as `app.store` and closes it after the server has drained. */
export default fp<{ database: DatabaseUrl, metrics: Metrics, tokenCacheBytes: number, tracing?: Tracing }>(async (app, { database, metrics, tokenCacheBytes, tracing }) => {
  const store = await openStore(database, {
    tokenCacheBytes,
    onPoolError: (error) => app.log.warn({ err: error }, 'database connection lost; reconnecting on demand'),
    onBatch: (creates) => metrics.batchSize.observe(creates)
  })
  app.decorate('store', instrumentStore(store, metrics, tracing))
  app.addHook('onClose', async () => { await store.close() })
}, { name: 'store' })
