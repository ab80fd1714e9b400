import { setImmediate as yieldToOthers, setTimeout as sleep } from 'node:timers/promises'
import type { LoggedEvent, StreamEventType } from '../contract/events.js'
import type { Filter } from '../contract/filter.js'
import { filteredBy } from './filtered.js'
import type { EventStore } from '../store/store.js'
import { fanOut } from './fan-out.js'
import { catchUpInTurn } from './catch-up.js'
import type { ReadLog } from './catch-up.js'
import { EventStream } from './stream.js'
import type { StreamOwner } from './stream.js'
import { CatchUpTurns } from './catch-up-turns.js'
import { OpenStreams } from './open-streams.js'
import type { Spans } from '../lib/trace-context.js'
import { CoalescedTask } from '../lib/coalesced-task.js'
import type { StreamSettings } from './stream.js'

// Events read from the log at a time, by the feed and by a stream catching up.
const PAGE = 500
// Streams reading their page of the log at once, in one process (one per principal at a time).
const CATCH_UP_AT_ONCE = 2
// The feed reads the log at most this often: under a stream of commits, each read takes what a few
// milliseconds brought, and every stream gets it in one write instead of one write per commit.
const MIN_READ_GAP_MS = 10

export interface FeedSettings extends StreamSettings {
  /** How often every stream gets a comment line (proxies close connections that stay quiet). */
  heartbeatMs: number
  /** When traces are on: a span per batch handed to the live streams, linked to its events' requests. */
  spans?: Spans
  /** Every read of the log, the feed's and each catching-up stream's (catch-up.ts). */
  readLog: ReadLog
}

/**
 * The event log's one reader in this process: it tails the log (woken by this process's own commits
 * and by the store's watch, which hears every other process's) and hands each batch, in sequence
 * order, to every live stream. A new stream first catches up from the log on its own, page by page,
 * and joins the live ones once its cursor has reached the feed's position; the stream's cursor
 * makes the seam exact. The log's order is the commit order (see the dialects' outboxes), so a
 * batch never holds an event below one already handed out.
 */
export class EventFeed {
  readonly #store: EventStore
  readonly #settings: FeedSettings
  readonly #live = new Set<EventStream>()
  readonly #all = new OpenStreams()
  readonly #turns = new CatchUpTurns(CATCH_UP_AT_ONCE)
  /** Undefined until the log's bounds could be read (the store may be down at start), and while no stream is open. */
  #position: bigint | undefined
  readonly #tailing = new CoalescedTask(() => this.#tail(), MIN_READ_GAP_MS)
  #unwatch: (() => void) | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #stopped = false

  constructor (store: EventStore, settings: FeedSettings) {
    this.#store = store
    this.#settings = settings
  }

  async start () {
    await this.#locate()
    this.#unwatch = this.#store.watch(() => this.wake())
    this.#heartbeat = setInterval(() => { for (const stream of this.#live) stream.comment('keep-alive') }, this.#settings.heartbeatMs)
    this.#heartbeat.unref()
  }

  /**
   * A new stream for `owner` from `cursor`, counted as open from now on (the caps are checked and the
   * stream registered with no wait between), until its body closes. Not yet served: see serve.
   */
  createStream (owner: StreamOwner, cursor: bigint, types: ReadonlySet<StreamEventType> | undefined, filter?: Filter) {
    const stream = new EventStream(owner, cursor, types, this.#settings, filter === undefined ? undefined : filteredBy(filter))
    this.#all.add(stream, () => this.#live.delete(stream))
    return stream
  }

  /** Streams open now for one principal. */
  openFor (key: string) {
    return this.#all.countFor(key)
  }

  /** Every stream open now, live or catching up. */
  get streams (): Iterable<EventStream> {
    return this.#all
  }

  /** Streams open now, live or catching up. */
  get open () {
    return this.#all.size
  }

  /** Something may have been committed: read the log past the position, soon (calls coalesce). */
  wake () {
    this.#tailing.wake()
  }

  /** Reads the log past the position and fans it out; answers false when it read nothing (no stream open). */
  async #tail (): Promise<boolean> {
    for (;;) {
      // With no stream open, nothing is read: the position is forgotten, and read again from the log's
      // bounds when a stream comes (see serve), so a feed nobody watches costs no reads.
      if (this.#all.size === 0) {
        this.#position = undefined
        return false
      }
      let events: LoggedEvent[]
      try {
        if (!await this.#locate()) return true
        events = await this.#settings.readLog({ after: this.#position!, limit: PAGE }, () => this.#live)
      } catch {
        return true // the store is unreachable: the next wake (a commit, or the watch's poll) tries again
      }
      if (events.length === 0) return true
      fanOut(events, this.#live, this.#settings.spans)
      this.#position = events.at(-1)!.sequence
      if (events.length < PAGE) return true
    }
  }

  /**
   * Serves one stream from its cursor: what it missed, from the log, then live. Catching up takes turns
   * (catch-up-turns.ts): a page at a time, a few streams at once and one per principal, yielding between
   * pages, so a replay of the whole log cannot hold the process.
   */
  async serve (stream: EventStream) {
    try {
      while (!stream.ended && !this.#stopped) {
        // Joining is synchronous with the check: the feed cannot move between them.
        if (this.#position === undefined) {
          // While the store cannot answer, wait and look again.
          if (!await this.#locate()) await sleep(50)
          continue
        }
        if (stream.cursor >= this.#position) {
          this.#live.add(stream)
          stream.live = true
          return
        }
        if (!stream.hasRoom) {
          await sleep(10)
          continue
        }
        if (!await catchUpInTurn(this.#store, stream, PAGE, this.#turns, this.#settings.readLog)) stream.cursor = this.#position
        await yieldToOthers()
      }
    } catch {
      stream.end()
    }
  }

  /**
   * Sets the position, when it is unset, to the log's newest sequence; answers false while the store
   * cannot answer. Both the tail and a new stream may ask at once: whichever's answer comes first wins,
   * since a stream may already have gone live at it, and what was committed between the two reads
   * would otherwise reach that stream neither by catch-up nor by fan-out.
   */
  async #locate (): Promise<boolean> {
    if (this.#position !== undefined) return true
    const latest = await this.#store.bounds().then((bounds) => bounds.latest, () => undefined)
    if (latest !== undefined) this.#position ??= latest
    return this.#position !== undefined
  }

  /** Ends every stream cleanly (each after its last whole event) and stops reading. */
  async stop () {
    this.#stopped = true
    clearInterval(this.#heartbeat)
    this.#unwatch?.()
    for (const stream of this.#all) stream.end()
    this.#live.clear()
    await this.#tailing.stop()
  }
}
