import { prunableThrough } from '../event-store.js'
import { toLoggedEvent, usableTicket } from '../rows.js'
import type { EventRow, TicketRow } from '../rows.js'
import type { EventQuery, EventStore, TicketRecord } from '../event-store.js'
import type { PostgresDatabase } from './database.js'
import { Listener } from './listener.js'
import { LOG_POSITION_SQL } from './outbox.js'

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

  constructor (db: PostgresDatabase, url: string) {
    this.#db = db
    this.#url = url
  }

  async read ({ after, limit }: EventQuery) {
    const rows = await this.#db.query<EventRow>('SELECT sequence, type, message_id, data, created_at, trace_parent FROM events WHERE sequence > $1 ORDER BY sequence LIMIT $2',
      [after.toString(), limit], 'events.read')
    return rows.map(toLoggedEvent)
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

  async addTicket (ticket: TicketRecord) {
    await this.#db.query('INSERT INTO event_tickets (hash, token_id, principal, scopes, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [ticket.hash, ticket.tokenId, ticket.principal, ticket.scopes.join(' '), ticket.expiresAt.getTime()])
  }

  async findTicket (hash: Buffer, now = Date.now()) {
    const [row] = await this.#db.query<TicketRow>(`SELECT t.*, k.revoked_at, k.expires_at AS token_expires_at
      FROM event_tickets t LEFT JOIN tokens k ON k.id = t.token_id WHERE t.hash = $1`, [hash])
    return row === undefined ? undefined : usableTicket(row, now)
  }

  async pruneTickets (now = Date.now()) {
    return (await this.#db.query<{ n: bigint }>('WITH gone AS (DELETE FROM event_tickets WHERE expires_at <= $1 RETURNING 1) SELECT count(*) AS n FROM gone', [now]))
      .map((row) => Number(row.n))[0] ?? 0
  }

  async close () {
    clearInterval(this.#poll)
    const listener = this.#listener
    this.#listener = undefined
    await listener?.close()
  }
}
