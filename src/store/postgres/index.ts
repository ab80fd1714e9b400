import type pg from 'pg'
import type { DialectStore } from '../store.js'
import { warmConnection } from './create-batch.js'
import { PostgresBulk } from './bulk.js'
import { createPool, PostgresDatabase } from './database.js'
import { migratePostgres } from './migrations.js'
import { PostgresPlants } from './plants.js'
import { TokenCache } from '../token-cache.js'
import { Listener } from './listener.js'
import { PostgresEvents } from './events.js'
import { PostgresTokens } from './tokens.js'
import { PostgresWebhooks } from './webhooks.js'

export interface PostgresOptions {
  url: string
  poolSize: number
  /** Where pool-level errors (an idle connection dropped by the server) are reported. */
  onPoolError?: (error: Error) => void
  /** Told the creates committed together in each statement. */
  onBatch?: (creates: number) => void
  /** Bytes the token lookups' cache may hold (default 1 MiB). */
  tokenCacheBytes?: number
  /** Every connection opened and warmed now, in the background, and kept open (openStore's `warm`). */
  warm?: boolean
  /** Told why the warm-up stopped short: the connections it did not ready open on demand instead. */
  onWarmFailure?: (error: Error) => void
}

/** Opens each of the pool's connections at once and readies it for the write path (warmConnection). */
async function warmPool (pool: pg.Pool, size: number) {
  await Promise.all(Array.from({ length: size }, async () => {
    const client = await pool.connect()
    try {
      await warmConnection(client)
    } finally {
      client.release()
    }
  }))
}

/** Opens a pool and migrates; throws with the driver's reason when the server cannot be reached. */
export async function openPostgres (options: PostgresOptions): Promise<DialectStore> {
  const pool = createPool(options.url, options.poolSize, { keepOpen: options.warm })
  // Without a listener an idle client's error (the server restarting) would crash the process.
  pool.on('error', (error) => options.onPoolError?.(error))
  try {
    await migratePostgres(pool)
  } catch (error) {
    await pool.end()
    throw error
  }
  // Not awaited: requests are served meanwhile, and a connection that fails here is opened again on demand.
  if (options.warm === true) warmPool(pool, options.poolSize).catch((error: Error) => options.onWarmFailure?.(error))
  const db = new PostgresDatabase(pool)
  const tokenCache = new TokenCache(options.tokenCacheBytes ?? 1 << 20)
  // The token cache's invalidation signal: a trigger NOTIFYs on any change to the tokens table, by any
  // instance, the CLI or plain SQL (migration 004); entries live a second at most in any case.
  const tokenChanges = new Listener(options.url, 'plantstore_tokens', () => tokenCache.clear())
  const events = new PostgresEvents(db, options.url)
  const tokens = new PostgresTokens(db, tokenCache)
  // Half the pool each for costly pages and for batches: the other half stays for plain reads and writes.
  const halfPool = Math.max(1, Math.floor(options.poolSize / 2))
  return {
    dialect: {
      name: 'postgres',
      sharedAcrossThreads: true,
      readVersion: () => undefined,
      connectWriter: null,
      pageReaders: halfPool,
      batchWriters: halfPool
    },
    plants: new PostgresPlants(db, options.onBatch),
    tokens,
    webhooks: new PostgresWebhooks(db),
    bulk: new PostgresBulk(db),
    events,
    ping: async () => { await db.query('SELECT 1') },
    close: async () => {
      // "Last used" is a courtesy: a store that cannot take it now does not hold the close up.
      await tokens.close().catch(() => {})
      await tokenChanges.close()
      await events.close()
      if (!pool.ended) await pool.end()
    }
  }
}
