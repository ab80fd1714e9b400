import fp from 'fastify-plugin'
import type { DatabaseUrl } from '../config/config.js'
import { instrumentStore } from '../telemetry/timed-store.js'
import type { Metrics } from '../telemetry/metrics.js'
import type { Tracing } from '../telemetry/tracing.js'
import { openStore } from '../store/open-store.js'
import { StoreUnavailable } from '../store/errors.js'
import type { Store } from '../store/store.js'
import { OutageLog } from '../telemetry/outage-log.js'

/** Opens the configured store as `app.store` and closes it after the server has drained. */
export default fp<{ database: DatabaseUrl, metrics: Metrics, tokenCacheBytes: number, tracing?: Tracing, warm: boolean }>(async (app, { database, metrics, tokenCacheBytes, tracing, warm }) => {
  // Pinged while the database is down: the store, once it is open.
  const ping = { store: undefined as Store | undefined }
  const outage = new OutageLog(app.log, database.kind === 'postgres' ? database.url : `sqlite:${database.path}`, () => ping.store!.ping())
  const store = ping.store = await openStore(database, {
    serving: true,
    warm,
    tokenCacheBytes,
    // A connection the pool held idle broke: the database went away (or restarted).
    onPoolError: (error) => { outage.failed(new StoreUnavailable(error)) },
    onBatch: (creates) => metrics.batchSize.observe(creates),
    // Serving goes on: the pool opens what the warm-up did not as requests need it.
    onWarmFailure: (error) => { app.log.warn({ err: error }, 'could not ready every database connection ahead of requests; the rest open on demand') }
  })
  app.decorate('store', instrumentStore(store, metrics, tracing))
  app.decorate('storeOutage', outage)
  app.addHook('onClose', async () => {
    outage.stop()
    await store.close()
  })
}, { name: 'store' })
