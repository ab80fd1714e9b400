import pg from 'pg'
import type { PoolClient } from 'pg'
import { StoreUnavailable } from '../errors.js'

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

/**
 * No parallel workers for a statement: the service runs many small statements at once, and a page
 * whose plan gathered workers waited for them behind the other connections' statements (`q=sw ro` on
 * 1,000,000 plants, 10 connections, 2 cores: p99 2.5 s with workers, 0.1 s without). Counts were no
 * slower without them.
 */
const SERIAL_PLANS = ['max_parallel_workers_per_gather=0']

/**
 * A pool of `poolSize` connections. Without `durableCommits` its commits return before PostgreSQL has
 * flushed them to disk (synchronous_commit off), so they never wait on an fsync: that is for the
 * webhook dispatcher's bookkeeping alone (claims and outcomes). A crash of the database may lose the
 * last of those, and then an event is sent again (at least once), never lost: events are written by
 * the creates, on durable connections. The SQLite writer relaxes the same bookkeeping to NORMAL.
 * That pool also plans each execution of its prepared statements for its own values: a plan cached
 * while the outbox was small (a new database) read the whole table for every batch of outcomes, long
 * after it had grown, until autovacuum next analysed it.
 */
export function createPool (url: string, poolSize: number, { durableCommits = true, keepOpen = false } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withSettings(url, durableCommits ? SERIAL_PLANS : [...SERIAL_PLANS, 'synchronous_commit=off', 'plan_cache_mode=force_custom_plan']),
    max: poolSize,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // Idle connections are closed only beyond this many (`keepOpen`: none, once opened).
    min: keepOpen ? poolSize : 0,
    statement_timeout: 15_000,
    types
  })
  return pool
}

/**
 * The URL with server settings added to its startup `options` (beside any it has): set as the
 * connection opens, where a SET queued on connect overlapped the pool's first query (pg's
 * DeprecationWarning on stderr).
 */
function withSettings (url: string, settings: string[]): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', [parsed.searchParams.get('options') ?? '', ...settings.map((setting) => `-c ${setting}`)].join(' ').trim())
  return parsed.href
}

/** The pool, with driver failures that mean "cannot serve now" turned into StoreUnavailable. */
export class PostgresDatabase {
  readonly pool: pg.Pool

  constructor (pool: pg.Pool) {
    this.pool = pool
  }

  /**
   * One statement on any pooled connection. A `name` makes it a prepared statement (parsed and planned
   * once per connection): given to the statements of the request path.
   */
  async query<R extends pg.QueryResultRow> (sql: string, values: unknown[] = [], name?: string): Promise<R[]> {
    try {
      return (await this.pool.query<R>(name === undefined ? { text: sql, values } : { name, text: sql, values })).rows
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailable(error) : error
    }
  }

  async transaction<T> (work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailable(error) : error
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
      throw broken !== undefined ? new StoreUnavailable(error) : error
    } finally {
      // A connection that failed is destroyed rather than handed to the next request.
      client.release(broken)
    }
  }
}
