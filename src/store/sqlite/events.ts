import type Database from 'better-sqlite3'
import type { GroupCommit } from '../group-commit.js'
import type { EventQuery, EventStore } from '../event-store.js'
import { toLoggedEvent } from '../rows.js'
import type { EventRow } from '../rows.js'
import { guard, opaqueInteger, Statements } from './connection.js'
import { changedElsewhere } from './data-version.js'
import { LOG_POSITION_SQL } from './outbox.js'
import { activeTokenIds } from './tokens.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

// How often a watcher asks whether another connection (the writer thread, another worker) committed.
const WATCH_EVERY_MS = 20

/**
 * The event log's readers on SQLite, on the main connection; pruning goes through the write queue
 * (write-jobs.ts, see preparePrune) like every other write of the hot path.
 */
export class SqliteEvents implements EventStore {
  readonly #db: Database.Database
  readonly #sql: Statements
  readonly #writes: GroupCommit<WriteJob, WriteResult>
  #ticketKey: Buffer | undefined

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>) {
    this.#db = db
    this.#sql = new Statements(db)
    this.#writes = writes
  }

  async read ({ after, limit }: EventQuery) {
    return guard(() => this.#sql.get<[bigint, bigint], EventRow>(
      `SELECT sequence, type, message_id, data, before, created_at, trace_parent FROM events WHERE sequence > ? ORDER BY sequence LIMIT ${opaqueInteger('?')}`)
      .all(after, BigInt(limit)).map(toLoggedEvent))
  }

  async readChecked (query: EventQuery, tokenIds: readonly number[]) {
    const events = await this.read(query)
    // Read after the page, and so at its snapshot or a later one.
    return { events, activeTokenIds: events.length === 0 ? new Set<number>() : activeTokenIds(this.#sql, tokenIds) }
  }

  async bounds () {
    const row = guard(() => this.#sql.get<[], { deleted_through: bigint, latest: bigint }>(`SELECT deleted_through, (${LOG_POSITION_SQL}) AS latest FROM event_log`).get())!
    return { deletedThrough: row.deleted_through, latest: row.latest }
  }

  async prune (before: number, max: number) {
    return await this.#writes.submit({ op: 'prune', before, max }) as number
  }

  watch (onChange: () => void) {
    let changed: (() => boolean) | undefined
    const timer = setInterval(() => {
      // A store closed (or failing) under a watcher: its readers find out when they read.
      let changedNow = false
      try {
        changed ??= changedElsewhere(this.#db, 0)
        changedNow = changed()
      } catch {}
      if (changedNow) onChange()
    }, WATCH_EVERY_MS)
    timer.unref()
    return () => clearInterval(timer)
  }

  async ticketKey () {
    // Made once by a migration and never changed: read once.
    this.#ticketKey ??= guard(() => this.#sql.get<[], { key: Buffer }>('SELECT key FROM ticket_keys WHERE id = 1').get()!.key)
    return this.#ticketKey
  }
}
