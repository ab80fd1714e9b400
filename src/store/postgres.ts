import pg from 'pg'
import type { PoolClient } from 'pg'
import { StorageUnavailable } from '../errors.js'
import { newMessageId, newPlantJson } from '../webhooks/payload.js'
import { GroupCommit } from './group-commit.js'
import { createBatchParams, createBatchSql, outcomeOf } from './postgres-batch.js'
import type { BatchRow } from './postgres-batch.js'
import { migratePostgres } from './postgres-migrations.js'
import { TokenCache } from './postgres-token-cache.js'
import { claimSql } from './postgres-webhooks.js'
import { toDelivery, toDeliveryReport, toPlant, toSubscription, toToken, toTokenWithHash } from './rows.js'
import type { DeliveryReportRow, DeliveryRow, PlantRow, SubscriptionRow, TokenRow } from './rows.js'
import { keysetStart, sameOrConflict, TokenNameTaken } from './store.js'
import type {
  AttemptResult, CreateOutcome, DeliveryClaim, NewToken, Plant, PlantQuery, Precondition, Store, WriteOutcome
} from './store.js'

export interface PostgresOptions {
  url: string
  poolSize: number
  /** Where pool-level errors (an idle connection dropped by the server) are reported. */
  onPoolError?: (error: Error) => void
  onBatch?: (size: number) => void
}

const INT8_OID = 20
// int8 as bigint, so that rows have the same shape as better-sqlite3's (see rows.ts) and no id rounds.
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format as 'text')
}

// Errors that mean "the database cannot serve now" (connection lost or refused, server shutting down,
// out of connections), answered with 503 rather than 500.
const UNAVAILABLE_CODES = /^(08|57P|53)|^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|AI_AGAIN)$|^ENOTFOUND$/
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended|terminating connection/i

export function isUnavailable (error: unknown): boolean {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message))
}

/** Opens a pool and migrates; throws with the driver's reason when the server cannot be reached. */
export async function openPostgres (options: PostgresOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
    types
  })
  // Without a listener an idle client's error (the server restarting) would crash the process.
  pool.on('error', (error) => options.onPoolError?.(error))
  try {
    await migratePostgres(pool)
  } catch (error) {
    await pool.end()
    throw error
  }
  return new PostgresStore(pool, new TokenCache(options.url), options.onBatch)
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool
  readonly #creates: GroupCommit<Plant, CreateOutcome>

  readonly #tokens: TokenCache

  constructor (pool: pg.Pool, tokens: TokenCache, onBatch?: (size: number) => void) {
    this.#pool = pool
    this.#tokens = tokens
    // Several batches in flight at once keep the pool's connections busy while each waits on its commit.
    this.#creates = new GroupCommit((plants: Plant[]) => this.#createBatch(plants), { maxInFlight: 4, onBatch })
  }

  async createPlant (plant: Plant): Promise<CreateOutcome> {
    return this.#creates.submit(plant)
  }

  /**
   * Group commit: a batch of creates with distinct ids is one statement (postgres-batch.ts); a repeated
   * id in the batch, and the rare row the statement cannot decide, go one by one afterwards, in order.
   */
  async #createBatch (plants: Plant[]): Promise<CreateOutcome[]> {
    const firsts: Plant[] = []
    const seen = new Set<bigint>()
    for (const plant of plants) {
      if (seen.has(plant.id)) continue
      seen.add(plant.id)
      firsts.push(plant)
    }
    const rows = await this.#query<BatchRow>(createBatchSql, createBatchParams(firsts, Date.now()))
    const rowOf = new Map(firsts.map((plant, i) => [plant, rows[i]!]))
    const stored = new Map<bigint, Plant>()
    const outcomes: CreateOutcome[] = []
    for (const plant of plants) {
      const row = rowOf.get(plant)
      // A repeated id is served as if right after its first: against what that one left stored.
      const earlier = stored.get(plant.id)
      const outcome = row !== undefined
        ? outcomeOf(plant, row) ?? await this.#createOne(plant)
        : earlier !== undefined ? sameOrConflict(plant, earlier) : await this.#createOne(plant)
      stored.set(plant.id, outcome.plant)
      outcomes.push(outcome)
    }
    return outcomes
  }

  async #createOne (plant: Plant): Promise<CreateOutcome> {
    // A plant deleted between our conflict and our read leaves nothing to compare: try again.
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#transaction(async (client): Promise<CreateOutcome | undefined> => {
        const now = Date.now()
        const inserted = await client.query(
          'INSERT INTO plants (id, name, tag, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
          [plant.id.toString(), plant.name, plant.tag ?? null, now])
        if (inserted.rowCount === 1) {
          const enqueued = await client.query(`INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
            SELECT $1, id, $2, $3, $4, $4 FROM webhook_subscriptions WHERE removed_at IS NULL`,
          [newMessageId(), plant.id.toString(), newPlantJson(plant), now])
          return { kind: 'created', plant, enqueued: (enqueued.rowCount ?? 0) > 0 }
        }
        const row = (await client.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = $1', [plant.id.toString()])).rows[0]
        if (row === undefined) return undefined
        return sameOrConflict(plant, toPlant(row))
      })
      if (outcome !== undefined || attempt === 3) return outcome ?? { kind: 'conflict', plant }
    }
  }

  async listPlants ({ limit, after, tag }: PlantQuery) {
    const from = keysetStart(after)
    if (from === undefined) return []
    const rows = tag === undefined
      ? await this.#query<PlantRow>('SELECT id, name, tag FROM plants WHERE id >= $1 ORDER BY id LIMIT $2', [from.toString(), limit])
      : await this.#query<PlantRow>('SELECT id, name, tag FROM plants WHERE tag = $1 AND id >= $2 ORDER BY id LIMIT $3',
        [tag, from.toString(), limit])
    return rows.map(toPlant)
  }

  async getPlant (id: bigint) {
    const [row] = await this.#query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = $1', [id.toString()])
    return row === undefined ? undefined : toPlant(row)
  }

  async replacePlant (plant: Plant, precondition?: Precondition) {
    return this.#guardedWrite(plant.id, precondition, async (client) => {
      await client.query('UPDATE plants SET name = $1, tag = $2 WHERE id = $3', [plant.name, plant.tag ?? null, plant.id.toString()])
      return plant
    })
  }

  async deletePlant (id: bigint, precondition?: Precondition) {
    return this.#guardedWrite(id, precondition, async (client, current) => {
      await client.query('DELETE FROM plants WHERE id = $1', [id.toString()])
      return current
    })
  }

  async findTokenByHash (hash: Buffer) {
    const cached = this.#tokens.get(hash)
    if (cached !== undefined) return cached
    const [row] = await this.#query<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash])
    if (row === undefined) return undefined
    const token = toTokenWithHash(row)
    this.#tokens.set(token)
    return token
  }

  async createToken (token: NewToken) {
    try {
      return await this.#insertToken(this.#pool, token)
    } catch (error) {
      if ((error as { constraint?: string }).constraint === 'tokens_name_key') throw new TokenNameTaken(token.name)
      throw error
    }
  }

  async createFirstToken (token: NewToken) {
    return this.#transaction(async (client) => {
      // Instances starting together on an empty store: the table lock lets exactly one create the token.
      await client.query('LOCK TABLE tokens IN SHARE ROW EXCLUSIVE MODE')
      if ((await client.query('SELECT 1 FROM tokens LIMIT 1')).rowCount !== 0) return false
      await this.#insertToken(client, token)
      return true
    })
  }

  async listTokens () {
    return (await this.#query<TokenRow>('SELECT * FROM tokens ORDER BY id')).map(toToken)
  }

  async revokeToken (nameOrId: string) {
    const id = /^\d{1,18}$/.test(nameOrId) ? nameOrId : null
    const [row] = await this.#query<TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, $1)
      WHERE name = $2 OR id = $3::bigint RETURNING *`, [Date.now(), nameOrId, id])
    this.#tokens.clear()
    return row === undefined ? undefined : toToken(row)
  }

  async addSubscription (url: string, secret: string) {
    const [row] = await this.#query<SubscriptionRow>(
      'INSERT INTO webhook_subscriptions (url, secret, created_at) VALUES ($1, $2, $3) RETURNING *', [url, secret, Date.now()])
    return toSubscription(row!)
  }

  async listSubscriptions () {
    return (await this.#query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE removed_at IS NULL ORDER BY id')).map(toSubscription)
  }

  async removeSubscription (id: number) {
    return this.#transaction(async (client) => {
      const now = Date.now()
      const removed = await client.query('UPDATE webhook_subscriptions SET removed_at = $1 WHERE id = $2 AND removed_at IS NULL', [now, id])
      await client.query(`UPDATE webhook_deliveries SET failed_at = $1, last_error = 'subscription removed'
        WHERE subscription_id = $2 AND delivered_at IS NULL AND failed_at IS NULL`, [now, id])
      return removed.rowCount === 1
    })
  }

  async claimDeliveries ({ now, leaseMs, perSubscription, max }: DeliveryClaim) {
    const at = now.getTime()
    return (await this.#query<DeliveryRow>(claimSql, [at, at + leaseMs, perSubscription, max])).map(toDelivery)
  }

  async recordAttempt (deliveryId: number, { delivered, status, error, nextAttemptAt }: AttemptResult) {
    const now = Date.now()
    await this.#query(`UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL,
      last_status = $1, last_error = $2, last_attempt_at = $3, delivered_at = $4, failed_at = $5,
      next_attempt_at = coalesce($6, next_attempt_at) WHERE id = $7`, [
      status, error, now, delivered ? now : null, !delivered && nextAttemptAt === null ? now : null,
      nextAttemptAt?.getTime() ?? null, deliveryId])
  }

  async listDeliveries (limit: number) {
    return (await this.#query<DeliveryReportRow>(`SELECT d.*, s.url FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id ORDER BY d.id DESC LIMIT $1`, [limit])).map(toDeliveryReport)
  }

  async ping () {
    await this.#query('SELECT 1')
  }

  async close () {
    await this.#tokens.close()
    if (!this.#pool.ended) await this.#pool.end()
  }

  async #insertToken (client: pg.Pool | PoolClient, token: NewToken) {
    const { rows } = await client.query<TokenRow>(`INSERT INTO tokens (name, hash, scopes, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null])
    return toToken(rows[0]!)
  }

  /** Reads the plant FOR UPDATE, checks the precondition and writes, in one transaction. */
  async #guardedWrite (id: bigint, precondition: Precondition | undefined,
    apply: (client: PoolClient, current: Plant) => Promise<Plant>): Promise<WriteOutcome> {
    return this.#transaction(async (client) => {
      const row = (await client.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = $1 FOR UPDATE', [id.toString()])).rows[0]
      if (row === undefined) return { kind: 'missing' }
      const current = toPlant(row)
      if (precondition !== undefined && !precondition(current)) return { kind: 'precondition-failed', plant: current }
      return { kind: 'done', plant: await apply(client, current) }
    })
  }

  async #query<R extends pg.QueryResultRow> (sql: string, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(sql, values)).rows
    } catch (error) {
      throw isUnavailable(error) ? new StorageUnavailable() : error
    }
  }

  async #transaction<T> (work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      throw isUnavailable(error) ? new StorageUnavailable() : error
    }
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      if (isUnavailable(error)) broken = error as Error
      await client.query('ROLLBACK').catch(() => {})
      throw broken !== undefined ? new StorageUnavailable() : error
    } finally {
      // A connection that failed is destroyed rather than handed to the next request.
      client.release(broken)
    }
  }
}
