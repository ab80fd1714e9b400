import { PassThrough } from 'node:stream'
import type { StreamEventType } from '../contract/events.js'
import type { EventBatch } from './batch.js'
import { leftEvent } from './filtered.js'
import type { Filtered, PlantsOfBatch } from './filtered.js'

/** What a stream needs of the feed it belongs to. */
export interface StreamSettings {
  /** Bytes a stream may have waiting for its reader; past them it is cut after its last whole event. */
  bufferBytes: number
  /** Told, for every write, how many events it carried and the seconds from the oldest one's commit to it. */
  onSent: (count: number, lagSeconds: number) => void
}

/**
 * One `GET /events` connection: a cursor (the last sequence it has passed) and the body it writes
 * Server-Sent Events into. The feed (feed.ts) offers it each batch of the log as it is read; events
 * at or below the cursor are skipped, so the seam between catching up and going live has neither a
 * gap nor a duplicate. A reader that lets more than `bufferBytes` pile up is cut after its last whole
 * event, and resumes from the log with Last-Event-ID.
 */
/** Whose a stream is: the principal's key (for per-token caps), and what ends it (stream-credentials.ts). */
export interface StreamOwner {
  readonly key: string
  /** The opaque token behind it: its revocation or expiry ends the stream. Null for a JWT. */
  readonly tokenId: number | null
  /** When its credential expires (Unix ms); null: never. */
  readonly expiresAt: number | null
}

export class EventStream {
  readonly body = new PassThrough()
  readonly owner: StreamOwner
  readonly #types: ReadonlySet<StreamEventType> | undefined
  readonly #filter: ((plants: PlantsOfBatch, i: number) => Filtered) | undefined
  readonly #settings: StreamSettings
  cursor: bigint
  live = false
  #ended = false

  constructor (owner: StreamOwner, cursor: bigint, types: ReadonlySet<StreamEventType> | undefined, settings: StreamSettings,
    filter?: (plants: PlantsOfBatch, i: number) => Filtered) {
    this.owner = owner
    this.cursor = cursor
    this.#types = types
    this.#filter = filter
    this.#settings = settings
  }

  get ended () {
    return this.#ended || this.body.destroyed
  }

  /**
   * Writes the batch's events after the cursor, in order, as many whole events as the buffer has room
   * for. A live stream with no room left is cut (its reader resumes from the log); one catching up
   * keeps its cursor at the last event written and is given the rest once its reader has read.
   * Answers false once the stream has ended.
   */
  write (batch: EventBatch): boolean {
    if (this.ended || batch.events.length === 0) return !this.ended
    const { events } = batch
    let room = this.#settings.bufferBytes - this.#pending
    // The common case: every event is new to this stream and wanted, and fits.
    if (this.#types === undefined && this.#filter === undefined && events[0]!.sequence > this.cursor && batch.wholeBytes <= room) {
      this.body.write(batch.whole)
      this.cursor = events.at(-1)!.sequence
      this.#settings.onSent(events.length, (Date.now() - batch.oldestAt) / 1000)
      return true
    }
    let text = ''
    let count = 0
    let cut = false
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!
      if (event.sequence <= this.cursor) continue
      const sent = this.#filter === undefined ? 'event' : this.#filter(batch.plants, i)
      const type = sent === 'left' ? 'plant.left' : event.type
      if (sent !== undefined && (this.#types === undefined || this.#types.has(type))) {
        const eventText = sent === 'left' ? leftEvent(event) : batch.texts[i]!
        room -= sent === 'left' ? Buffer.byteLength(eventText) : batch.bytes[i]!
        if (room < 0) {
          cut = true
          break
        }
        text += eventText
        count++
      }
      this.cursor = event.sequence
    }
    if (text !== '') this.body.write(text)
    if (count > 0) this.#settings.onSent(count, (Date.now() - batch.oldestAt) / 1000)
    if (cut && this.live) {
      this.end()
      return false
    }
    return true
  }

  /** Bytes written and not yet taken by the reader's connection. */
  get #pending () {
    return this.body.readableLength + this.body.writableLength
  }

  /** A line the client ignores: keeps proxies from closing an idle connection. */
  comment (text: string) {
    if (!this.ended) this.body.write(`: ${text}\n\n`)
  }

  /** Writes raw SSE text (the `retry:` line, a `reset` event). */
  raw (text: string) {
    if (!this.ended) this.body.write(text)
  }

  /** Whether the reader has room for more (catching up waits for it; live streams are cut instead). */
  get hasRoom () {
    return this.#pending <= this.#settings.bufferBytes / 2
  }

  end () {
    if (this.#ended) return
    this.#ended = true
    this.body.end()
  }
}
