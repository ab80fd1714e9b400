import type { EventQuery, EventStore, LoggedEvent, TokenStore } from '../store/store.js'
import type { EventStream } from './stream.js'

// Often enough that an idle stream ends within a second of its credential, the check's own read included.
const CHECK_EVERY_MS = 250

/**
 * Ends open streams whose credential no longer holds: expired (an opaque token's expiry, a JWT's `exp`),
 * or its token revoked or expired, by this process or any other on the store. The feed and catching-up
 * streams read the log through `read`, which asks about the tokens of the streams it reads for in the
 * same snapshot (so no event committed after a revocation reaches the revoked token's streams, at no
 * extra round trip), and a timer asks for idle streams, in one statement for all open streams' tokens,
 * and only while a stream with a token is open. A stream ends after its last whole event; its reader's
 * reconnect is then refused (401).
 */
export class StreamCredentials {
  readonly #streams: () => Iterable<EventStream>
  readonly #tokens: TokenStore
  readonly #events: EventStore
  #timer: NodeJS.Timeout | undefined
  #checking: Promise<void> | undefined
  #next: Promise<void> | undefined

  constructor (streams: () => Iterable<EventStream>, tokens: TokenStore, events: EventStore) {
    this.#streams = streams
    this.#tokens = tokens
    this.#events = events
  }

  start () {
    this.#timer = setInterval(() => { this.check().catch(() => {}) }, CHECK_EVERY_MS).unref()
  }

  stop () {
    clearInterval(this.#timer)
  }

  /**
   * A page of the log for `streams` (those it is to be written to), with their tokens' state read in the
   * same snapshot: those whose credential has ended are ended before the caller writes the page. A
   * stream among them that the read did not ask about (it came meanwhile) is checked after it, by `check`.
   */
  async read (query: EventQuery, streams: () => Iterable<EventStream>): Promise<LoggedEvent[]> {
    const asked = tokensOf(streams())
    const { events, activeTokenIds } = await this.#events.readChecked(query, [...asked])
    if (events.length > 0 && endEnded(streams(), asked, activeTokenIds)) await this.check()
    return events
  }

  /**
   * Checks every open stream, ending those whose credential has ended. Callers at the same moment share
   * one check begun after they asked. Throws when the store cannot answer (the streams stay as they are).
   */
  check (): Promise<void> {
    if (this.#checking === undefined) {
      this.#checking = this.#checkOnce().finally(() => { this.#checking = undefined })
      return this.#checking
    }
    // One already running began before this caller asked, and may have read too early for it.
    this.#next ??= this.#checking.catch(() => {}).then(() => {
      this.#next = undefined
      return this.check()
    })
    return this.#next
  }

  async #checkOnce () {
    const asked = tokensOf(this.#streams())
    if (asked.size === 0) return
    endEnded(this.#streams(), asked, await this.#tokens.activeIds([...asked]))
  }
}

/** The tokens of `streams` not yet expired by their own expiry; those expired are ended. */
function tokensOf (streams: Iterable<EventStream>): Set<number> {
  const now = Date.now()
  const tokenIds = new Set<number>()
  for (const stream of streams) {
    const { expiresAt, tokenId } = stream.owner
    if (expiresAt !== null && expiresAt <= now) stream.end()
    else if (tokenId !== null) tokenIds.add(tokenId)
  }
  return tokenIds
}

/** Ends the streams whose token was asked about and is not active; answers whether some stream's token was not asked about. */
function endEnded (streams: Iterable<EventStream>, asked: ReadonlySet<number>, active: ReadonlySet<number>): boolean {
  let unasked = false
  for (const stream of streams) {
    const { tokenId } = stream.owner
    if (tokenId === null || stream.ended) continue
    if (!asked.has(tokenId)) unasked = true
    else if (!active.has(tokenId)) stream.end()
  }
  return unasked
}
