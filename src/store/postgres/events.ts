import { prunableThrough } from '../event-store.js'
import { toLoggedEvent } from '../rows.js'
import type { EventRow } from '../rows.js'
import type { EventQuery, EventStore } from '../event-store.js'
import type { PostgresDatabase } from './database.js'
import { Listener } from './listener.js'
import { LOG_POSITION_SQL } from './outbox.js'
import { activeTokensWhere } from './tokens.js'

const EVENT_COLUMNS = 'sequence, type, message_id, data, before, created_at, trace_parent'

// A safety net under the notifications: watchers look at the log this often in any case.
const POLL_MS = 1000

/**
 * The event log's readers on PostgreSQL. Watchers are woken by LISTEN/NOTIFY (a trigger notifies on
 * every append, on any instance; migration 008), over one connection shared by all of them, which is
 * opened while anyone watches.
 */
export class PostgresEvents implements EventStore {
  readonly #db: PostgresDatabase
  readonly #url: string
  readonly #watchers = new Set<() => void>()
  #listener: Listener | undefined
  #poll: NodeJS.Timeout | undefined
  #ticketKey: Promise<Buffer> | undefined

  constructor (db: PostgresDatabase, url: string) {
    this.#db = db
    this.#url = url
  }

  async read ({ after, limit }: EventQuery) {
    const rows = await this.#db.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE sequence > $1 ORDER BY sequence LIMIT $2`,
      [after.toString(), limit], 'events.read')
    return rows.map(toLoggedEvent)
  }

  async readChecked ({ after, limit }: EventQuery, tokenIds: readonly number[]) {
    // One statement, so one snapshot: an event on the page was committed before it, and so before any
    // revocation it does not see. The tokens' row has no sequence and sorts last.
    const rows = await this.#db.query<EventRow & { active: string[] | null }>(`
      SELECT ${EVENT_COLUMNS}, NULL::text[] AS active
        FROM (SELECT * FROM events WHERE sequence > $1 ORDER BY sequence LIMIT $2) page
      UNION ALL
      SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, ARRAY(SELECT id::text FROM tokens WHERE ${activeTokensWhere('$3', '$4')})
      ORDER BY sequence NULLS LAST`, [after.toString(), limit, tokenIds, Date.now()], 'events.readChecked')
    const active = rows.pop()!.active!
    return { events: rows.map(toLoggedEvent), activeTokenIds: new Set(active.map(Number)) }
  }

  async bounds () {
    const [row] = await this.#db.query<{ deleted_through: bigint, latest: bigint }>(
      `SELECT deleted_through, (${LOG_POSITION_SQL}) AS latest FROM event_log`)
    return { deletedThrough: row!.deleted_through, latest: row!.latest }
  }

  async prune (before: number, max: number) {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<{ sequence: bigint, message_id: string, created_at: bigint, latest: bigint, pending: boolean }>(
        `SELECT e.sequence, e.message_id, e.created_at, (${LOG_POSITION_SQL}) AS latest,
          EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = e.message_id AND d.delivered_at IS NULL AND d.failed_at IS NULL) AS pending
        FROM (SELECT * FROM events ORDER BY sequence LIMIT $1) e ORDER BY e.sequence`, [max])
      const pending = new Set(rows.filter((row) => row.pending).map((row) => row.message_id))
      const through = prunableThrough(rows.map((row) => ({ sequence: row.sequence, messageId: row.message_id, createdAt: Number(row.created_at) })),
        before, rows[0]?.latest ?? 0n, (messageId) => pending.has(messageId))
      if (through === undefined) return 0
      await client.query('UPDATE event_log SET deleted_through = greatest(deleted_through, $1)', [through.toString()])
      return (await client.query('DELETE FROM events WHERE sequence <= $1', [through.toString()])).rowCount ?? 0
    })
  }

  watch (onChange: () => void) {
    this.#watchers.add(onChange)
    if (this.#listener === undefined) {
      const signal = () => { for (const watcher of this.#watchers) watcher() }
      this.#listener = new Listener(this.#url, 'plantstore_events', signal)
      this.#poll = setInterval(signal, POLL_MS).unref()
    }
    return () => {
      this.#watchers.delete(onChange)
      if (this.#watchers.size === 0) this.close().catch(() => {})
    }
  }

  async ticketKey () {
    // Made once by a migration and never changed: read once (again only after a failed read).
    this.#ticketKey ??= this.#db.query<{ key: Buffer }>('SELECT key FROM ticket_keys WHERE id = 1').then(([row]) => row!.key)
    this.#ticketKey.catch(() => { this.#ticketKey = undefined })
    return this.#ticketKey
  }

  async close () {
    clearInterval(this.#poll)
    const listener = this.#listener
    this.#listener = undefined
    await listener?.close()
  }
}
