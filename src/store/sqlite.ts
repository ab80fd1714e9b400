import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { StorageUnavailable } from '../errors.js'
import { GroupCommit } from './group-commit.js'
import { connect, createBatchRunner } from './sqlite-connection.js'
import type { SqliteSynchronous } from './sqlite-connection.js'
import { SqliteWriter } from './sqlite-writer.js'
import { migrateSqlite } from './sqlite-migrations.js'
import { toDelivery, toDeliveryReport, toPlant, toSubscription, toToken, toTokenWithHash } from './rows.js'
import type { DeliveryReportRow, DeliveryRow, PlantRow, SubscriptionRow, TokenRow } from './rows.js'
import { claimSql } from './sqlite-webhooks.js'
import { keysetStart, TokenNameTaken } from './store.js'
import type {
  AttemptResult, CreateOutcome, DeliveryClaim, NewToken, Plant, PlantQuery, Precondition, Store, WriteOutcome
} from './store.js'

export type { SqliteSynchronous } from './sqlite-connection.js'

export interface SqliteOptions {
  /** `:memory:` or a file path; the file's folder is created. */
  path: string
  /** FULL by default: a 200 survives a power cut, not only a crash of the process. */
  synchronous?: SqliteSynchronous
  onBatch?: (size: number) => void
}

// Codes that mean "the database cannot serve now", not "the request is wrong": answered with 503.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/

/** Opens (creating if need be) and migrates an SQLite store. Throws with the driver's reason. */
export function openSqlite (options: SqliteOptions): Store {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
  const synchronous = options.synchronous ?? 'FULL'
  const db = connect(options.path, synchronous)
  migrateSqlite(db)
  // An in-memory database is private to its connection, and has no fsync to move off the event loop.
  const writer = options.path === ':memory:' ? undefined : new SqliteWriter(options.path, synchronous)
  return new SqliteStore(db, writer, options.onBatch)
}

class SqliteStore implements Store {
  readonly #db: Database.Database
  readonly #selectPlant: Database.Statement<[bigint], PlantRow>
  readonly #selectTokenByHash: Database.Statement<[Buffer], TokenRow>
  readonly #insertToken: Database.Statement
  readonly #creates: GroupCommit<Plant, CreateOutcome>
  readonly #replacePlant: (plant: Plant, precondition?: Precondition) => WriteOutcome
  readonly #deletePlant: (id: bigint, precondition?: Precondition) => WriteOutcome
  readonly #listPlants: Database.Statement<[bigint, bigint], PlantRow>
  readonly #listPlantsByTag: Database.Statement<[string, bigint, bigint], PlantRow>

  readonly #writer: SqliteWriter | undefined

  /** Creates run on `writer`'s thread when there is one (a file), else on `db` (in memory). */
  constructor (db: Database.Database, writer: SqliteWriter | undefined, onBatch?: (size: number) => void) {
    this.#db = db
    this.#selectPlant = db.prepare('SELECT id, name, tag FROM plants WHERE id = ?')
    this.#selectTokenByHash = db.prepare('SELECT * FROM tokens WHERE hash = ?')
    this.#insertToken = db.prepare('INSERT INTO tokens (name, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
    // Only an in-memory store commits on this connection; a file's creates go to the writer thread.
    const createHere = writer === undefined ? createBatchRunner(db) : undefined
    this.#creates = new GroupCommit(writer === undefined
      ? (plants: Plant[]) => guard(() => createHere!(plants))
      : (plants: Plant[]) => writer.run(plants).catch((error: unknown) => guard(() => { throw error })),
    { maxInFlight: writer === undefined ? 1 : 2, onBatch })
    this.#writer = writer
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
    return this.#creates.submit(plant)
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
      return row === undefined ? undefined : toTokenWithHash(row)
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
      if (this.#sql('SELECT 1 FROM tokens LIMIT 1').get() !== undefined) return false
      this.#insertTokenRow(token)
      return true
    })
    return guard(() => createIfNone.immediate())
  }

  async listTokens () {
    return guard(() => (this.#sql('SELECT * FROM tokens ORDER BY id').all() as TokenRow[]).map(toToken))
  }

  async revokeToken (nameOrId: string) {
    return guard(() => {
      const row = this.#sql(`UPDATE tokens SET revoked_at = coalesce(revoked_at, ?)
        WHERE name = ? OR (? GLOB '[0-9]*' AND id = CAST(? AS INTEGER)) RETURNING *`)
        .get(Date.now(), nameOrId, nameOrId, nameOrId) as TokenRow | undefined
      return row === undefined ? undefined : toToken(row)
    })
  }

  async addSubscription (url: string, secret: string) {
    return guard(() => toSubscription(this.#sql(
      'INSERT INTO webhook_subscriptions (url, secret, created_at) VALUES (?, ?, ?) RETURNING *'
    ).get(url, secret, Date.now()) as SubscriptionRow))
  }

  async listSubscriptions () {
    return guard(() => (this.#sql('SELECT * FROM webhook_subscriptions WHERE removed_at IS NULL ORDER BY id')
      .all() as SubscriptionRow[]).map(toSubscription))
  }

  async removeSubscription (id: number) {
    const remove = this.#db.transaction(() => {
      const now = Date.now()
      const { changes } = this.#sql('UPDATE webhook_subscriptions SET removed_at = ? WHERE id = ? AND removed_at IS NULL').run(now, id)
      this.#sql(`UPDATE webhook_deliveries SET failed_at = ?, last_error = 'subscription removed'
        WHERE subscription_id = ? AND delivered_at IS NULL AND failed_at IS NULL`).run(now, id)
      return changes === 1
    })
    return guard(() => remove.immediate())
  }

  async claimDeliveries ({ now, leaseMs, perSubscription, max }: DeliveryClaim) {
    const at = now.getTime()
    return guard(() => (this.#sql(claimSql).all({ now: at, lease: at + leaseMs, perSubscription, max }) as DeliveryRow[])
      .map(toDelivery))
  }

  async recordAttempt (deliveryId: number, { delivered, status, error, nextAttemptAt }: AttemptResult) {
    const now = Date.now()
    guard(() => this.#sql(`UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL,
      last_status = ?, last_error = ?, last_attempt_at = ?, delivered_at = ?, failed_at = ?,
      next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ?`).run(
      status, error, now, delivered ? now : null, !delivered && nextAttemptAt === null ? now : null,
      nextAttemptAt?.getTime() ?? null, deliveryId))
  }

  async listDeliveries (limit: number) {
    return guard(() => (this.#sql(`SELECT d.*, s.url FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id ORDER BY d.id DESC LIMIT ?`)
      .all(limit) as DeliveryReportRow[]).map(toDeliveryReport))
  }

  async ping () {
    guard(() => this.#sql('SELECT 1').get())
  }

  async close () {
    await this.#writer?.close()
    if (this.#db.open) this.#db.close()
  }

  // Statements are compiled once and kept: preparing is the costliest part of a small query.
  readonly #statements = new Map<string, Database.Statement>()

  #sql (text: string): Database.Statement {
    let statement = this.#statements.get(text)
    if (statement === undefined) {
      statement = this.#db.prepare(text)
      this.#statements.set(text, statement)
    }
    return statement
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
