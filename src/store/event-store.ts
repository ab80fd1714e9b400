import type { LoggedEvent } from '../contract/events.js'
import type { Scope } from './token-store.js'

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

/** A stream ticket, as the store keeps it (only its hash). */
export interface TicketRecord {
  hash: Buffer
  /** The opaque token it was made with (null for a JWT), looked up again at each use. */
  tokenId: number | null
  principal: string
  scopes: Scope[]
  expiresAt: Date
}

/** The event log's readers' side: the plant writes append to it (see each dialect's outbox). */
export interface EventStore {
  /** Events after `after`, in sequence order. */
  read (query: EventQuery): Promise<LoggedEvent[]>
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
  addTicket (ticket: TicketRecord): Promise<void>
  /** The ticket if it exists, has not expired, and (for an opaque token) its token is neither revoked nor expired. */
  findTicket (hash: Buffer, now?: number): Promise<TicketRecord | undefined>
  /** Removes expired tickets; answers how many. */
  pruneTickets (now?: number): Promise<number>
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
