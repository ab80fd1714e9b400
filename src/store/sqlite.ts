import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { StorageUnavailable } from '../errors.js'
import { newMessageId, newPlantJson } from '../webhooks/payload.js'
import { migrateSqlite } from './sqlite-migrations.js'
import { toDelivery, toDeliveryReport, toPlant, toSubscription, toToken } from './rows.js'
import type { DeliveryReportRow, DeliveryRow, PlantRow, SubscriptionRow, TokenRow } from './rows.js'
import { claimSql } from './sqlite-webhooks.js'
import { keysetStart, TokenNameTaken } from './store.js'
import type {
  AttemptResult, CreateOutcome, DeliveryClaim, NewToken, Plant, PlantQuery, Precondition, Store, WriteOutcome
} from './store.js'

export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

export interface SqliteOptions {
  /** `:memory:` or a file path; the file's folder is created. */
  path: string
  /** FULL by default: a 200 survives a power cut, not only a crash of the process. */
  synchronous?: SqliteSynchronous
}

// Codes that mean "the database cannot serve now", not "the request is wrong": answered with 503.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/

/** Opens (creating if need be) and migrates an SQLite store. Throws with the driver's reason. */
export function openSqlite (options: SqliteOptions): Store {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
  const db = new Database(options.path)
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`)
  db.pragma('busy_timeout = 5000')
  db.defaultSafeIntegers(true)
  migrateSqlite(db)
  return new SqliteStore(db)
}

class SqliteStore implements Store {
  readonly #db: Database.Database
  readonly #insertPlant: Database.Statement
  readonly #selectPlant: Database.Statement<[bigint], PlantRow>
  readonly #selectTokenByHash: Database.Statement<[Buffer], TokenRow>
  readonly #insertToken: Database.Statement
  readonly #createPlant: (plant: Plant) => CreateOutcome
  readonly #replacePlant: (plant: Plant, precondition?: Precondition) => WriteOutcome
  readonly #deletePlant: (id: bigint, precondition?: Precondition) => WriteOutcome
  readonly #listPlants: Database.Statement<[bigint, bigint], PlantRow>
  readonly #listPlantsByTag: Database.Statement<[string, bigint, bigint], PlantRow>

  constructor (db: Database.Database) {
    this.#db = db
    this.#insertPlant = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
    this.#selectPlant = db.prepare('SELECT id, name, tag FROM plants WHERE id = ?')
    this.#selectTokenByHash = db.prepare('SELECT * FROM tokens WHERE hash = ?')
    this.#insertToken = db.prepare('INSERT INTO tokens (name, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
    // The outbox: one delivery per current subscriber, in the plant's own transaction.
    const enqueueDeliveries = db.prepare(`INSERT INTO webhook_deliveries
      (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at)
      SELECT ?, id, ?, ?, ?, ? FROM webhook_subscriptions WHERE removed_at IS NULL`)
    const create = db.transaction((plant: Plant): CreateOutcome => {
      const now = Date.now()
      const { changes } = this.#insertPlant.run(plant.id, plant.name, plant.tag ?? null, now)
      if (changes === 1) {
        enqueueDeliveries.run(newMessageId(), plant.id, newPlantJson(plant), now, now)
        return { kind: 'created', plant }
      }
      const stored = toPlant(this.#selectPlant.get(plant.id)!)
      const same = stored.name === plant.name && stored.tag === plant.tag
      return { kind: same ? 'replayed' : 'conflict', plant: stored }
    })
    this.#createPlant = (plant) => create.immediate(plant)
    this.#listPlants = db.prepare('SELECT id, name, tag FROM plants WHERE id >= ? ORDER BY id LIMIT ?')
    this.#listPlantsByTag = db.prepare('SELECT id, name, tag FROM plants WHERE tag = ? AND id >= ? ORDER BY id LIMIT ?')
    const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
    const remove = db.prepare('DELETE FROM plants WHERE id = ?')
    // Read, check and write in one IMMEDIATE transaction: no other writer can slip in between.
    const guardedWrite = db.transaction((id: bigint, precondition: Precondition | undefined, apply: (current: Plant) => Plant): WriteOutcome => {
      const row = this.#selectPlant.get(id)
      if (row === undefined) return { kind: 'missing' }
      const current = toPlant(row)
      if (precondition !== undefined && !precondition(current)) return { kind: 'precondition-failed', plant: current }
      return { kind: 'done', plant: apply(current) }
    })
    this.#replacePlant = (plant, precondition) => guardedWrite.immediate(plant.id, precondition, () => {
      update.run(plant.name, plant.tag ?? null, plant.id)
      return plant
    })
    this.#deletePlant = (id, precondition) => guardedWrite.immediate(id, precondition, (current) => {
      remove.run(id)
      return current
    })
  }

  async createPlant (plant: Plant) {
    return guard(() => this.#createPlant(plant))
  }

  async listPlants ({ limit, after, tag }: PlantQuery) {
    const from = keysetStart(after)
    if (from === undefined) return []
    return guard(() => (tag === undefined
      ? this.#listPlants.all(from, BigInt(limit))
      : this.#listPlantsByTag.all(tag, from, BigInt(limit))).map(toPlant))
  }

  async getPlant (id: bigint) {
    return guard(() => {
      const row = this.#selectPlant.get(id)
      return row === undefined ? undefined : toPlant(row)
    })
  }

  async replacePlant (plant: Plant, precondition?: Precondition) {
    return guard(() => this.#replacePlant(plant, precondition))
  }

  async deletePlant (id: bigint, precondition?: Precondition) {
    return guard(() => this.#deletePlant(id, precondition))
  }

  async findTokenByHash (hash: Buffer) {
    return guard(() => {
      const row = this.#selectTokenByHash.get(hash)
      return row === undefined ? undefined : toToken(row)
    })
  }

  async createToken (token: NewToken) {
    return guard(() => {
      try {
        return this.#insertTokenRow(token)
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String(error).includes('tokens.name')) {
          throw new TokenNameTaken(token.name)
        }
        throw error
      }
    })
  }

  async createFirstToken (token: NewToken) {
    const createIfNone = this.#db.transaction(() => {
      if (this.#db.prepare('SELECT 1 FROM tokens LIMIT 1').get() !== undefined) return false
      this.#insertTokenRow(token)
      return true
    })
    return guard(() => createIfNone.immediate())
  }

  async listTokens () {
    return guard(() => (this.#db.prepare('SELECT * FROM tokens ORDER BY id').all() as TokenRow[]).map(toToken))
  }

  async revokeToken (nameOrId: string) {
    return guard(() => {
      const row = this.#db.prepare(`UPDATE tokens SET revoked_at = coalesce(revoked_at, ?)
        WHERE name = ? OR (? GLOB '[0-9]*' AND id = CAST(? AS INTEGER)) RETURNING *`)
        .get(Date.now(), nameOrId, nameOrId, nameOrId) as TokenRow | undefined
      return row === undefined ? undefined : toToken(row)
    })
  }

  async addSubscription (url: string, secret: string) {
    return guard(() => toSubscription(this.#db.prepare(
      'INSERT INTO webhook_subscriptions (url, secret, created_at) VALUES (?, ?, ?) RETURNING *'
    ).get(url, secret, Date.now()) as SubscriptionRow))
  }

  async listSubscriptions () {
    return guard(() => (this.#db.prepare('SELECT * FROM webhook_subscriptions WHERE removed_at IS NULL ORDER BY id')
      .all() as SubscriptionRow[]).map(toSubscription))
  }

  async removeSubscription (id: number) {
    const remove = this.#db.transaction(() => {
      const now = Date.now()
      const { changes } = this.#db.prepare('UPDATE webhook_subscriptions SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(now, id)
      this.#db.prepare(`UPDATE webhook_deliveries SET failed_at = ?, last_error = 'subscription removed'
        WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      return changes === 1
    })
    return guard(() => remove.immediate())
  }

  async claimDeliveries ({ now, leaseMs, perSubscription, max }: DeliveryClaim) {
    const at = now.getTime()
    return guard(() => (this.#db.prepare(claimSql).all({ now: at, lease: at + leaseMs, perSubscription, max }) as DeliveryRow[])
      .map(toDelivery))
  }

  async recordAttempt (deliveryId: number, { delivered, status, error, nextAttemptAt }: AttemptResult) {
    const now = Date.now()
    guard(() => this.#db.prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL,
      last_status = ?, last_error = ?, last_attempt_at = ?, delivered_at = ?, failed_at = ?,
      next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ?`).run(
      status, error, now, delivered ? now : null, !delivered && nextAttemptAt === null ? now : null,
      nextAttemptAt?.getTime() ?? null, deliveryId))
  }

  async listDeliveries (limit: number) {
    return guard(() => (this.#db.prepare(`SELECT d.*, s.url FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id ORDER BY d.id DESC LIMIT ?`)
      .all(limit) as DeliveryReportRow[]).map(toDeliveryReport))
  }

  async ping () {
    guard(() => this.#db.prepare('SELECT 1').get())
  }

  async close () {
    if (this.#db.open) this.#db.close()
  }

  #insertTokenRow (token: NewToken) {
    return toToken(this.#insertToken.get(
      token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null
    ) as TokenRow)
  }
}

/** Runs a driver call, turning "cannot serve now" driver errors into StorageUnavailable. */
function guard<T> (call: () => T): T {
  try {
    return call()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && UNAVAILABLE.test(code)) throw new StorageUnavailable()
    throw error
  }
}
