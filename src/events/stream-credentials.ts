import type { TokenStore } from '../store/store.js'
import type { EventStream } from './stream.js'

// Often enough that an idle stream ends within a second of its credential, the check's own read included.
const CHECK_EVERY_MS = 250

/**
 * Ends open streams whose credential no longer holds: expired (an opaque token's expiry, a JWT's `exp`),
 * or its token revoked or expired, by this process or any other on the store. The feed asks before it
 * writes what it read from the log (so no event committed after a revocation reaches the revoked
 * token's streams), and a timer asks for idle streams. Each check reads the state of the open streams'
 * tokens in one statement, and only while a stream with a token is open. A stream ends after its last
 * whole event; its reader's reconnect is then refused (401).
 */
export class StreamCredentials {
  readonly #streams: () => Iterable<EventStream>
  readonly #tokens: TokenStore
  #timer: NodeJS.Timeout | undefined
  #checking: Promise<void> | undefined
  #next: Promise<void> | undefined

  constructor (streams: () => Iterable<EventStream>, tokens: TokenStore) {
    this.#streams = streams
    this.#tokens = tokens
  }

  start () {
    this.#timer = setInterval(() => { this.check().catch(() => {}) }, CHECK_EVERY_MS).unref()
  }

  stop () {
    clearInterval(this.#timer)
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
    const now = Date.now()
    const tokenIds = new Set<number>()
    for (const stream of this.#streams()) {
      const { expiresAt, tokenId } = stream.owner
      if (expiresAt !== null && expiresAt <= now) stream.end()
      else if (tokenId !== null) tokenIds.add(tokenId)
    }
    if (tokenIds.size === 0) return
    const active = await this.#tokens.activeIds([...tokenIds])
    for (const stream of this.#streams()) {
      const { tokenId } = stream.owner
      if (tokenId !== null && tokenIds.has(tokenId) && !active.has(tokenId)) stream.end()
    }
  }
}
