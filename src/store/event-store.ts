import type { LoggedEvent } from '../contract/events.js'

export type { LoggedEvent } from '../contract/events.js'

/** Where the log stands: what retention deleted through, and the newest sequence committed (0: none yet). */
export interface LogBounds {
  deletedThrough: bigint
  latest: bigint
}

export interface EventQuery {
  /** Only events after this sequence. */
  after: bigint
  limit: number
}

/** A page of the log, and which of the tokens asked about were active when it was read. */
export interface CheckedPage {
  events: LoggedEvent[]
  activeTokenIds: Set<number>
}

/** The event log's readers' side: the plant writes append to it (see each dialect's outbox). */
export interface EventStore {
  /** Events after `after`, in sequence order. */
  read (query: EventQuery): Promise<LoggedEvent[]>
  /**
   * A page as `read` answers it and, of `tokenIds`, those still active (neither revoked nor expired) as
   * of the page or later, so a token that ended before one of the page's events was committed is never
   * answered active. On PostgreSQL one statement: one snapshot and one round trip.
   */
  readChecked (query: EventQuery, tokenIds: readonly number[]): Promise<CheckedPage>
  bounds (): Promise<LogBounds>
  /**
   * Deletes, in one short transaction, up to `max` of the oldest events created before `before`, never
   * the newest, never one whose webhook delivery is pending, and never past such a one (the log stays
   * whole above what was deleted). Answers how many went.
   */
  prune (before: number, max: number): Promise<number>
  /**
   * Calls `onChange` soon after any process commits to the log (this one's own commits are announced
   * by the caller); answers a function that stops watching.
   */
  watch (onChange: () => void): () => void
  /** The key stream tickets are signed with (auth/tickets.ts), the same for every process on the store. */
  ticketKey (): Promise<Buffer>
}

/** An event as retention looks at it. */
export interface AgedEvent { sequence: bigint, messageId: string, createdAt: number }

/**
 * Of the oldest events (in sequence order), the sequence through which retention may delete: those
 * created before `before`, up to the first that is newer, is the newest of all, or has a webhook
 * delivery pending; undefined when none may go.
 */
export function prunableThrough (oldest: AgedEvent[], before: number, latest: bigint, pending: (messageId: string) => boolean): bigint | undefined {
  let through: bigint | undefined
  for (const event of oldest) {
    if (event.createdAt >= before || event.sequence >= latest || pending(event.messageId)) break
    through = event.sequence
  }
  return through
}
