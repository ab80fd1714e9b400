import { PassThrough } from 'node:stream'
import { sseEvent } from '../contract/events.js'
import type { LoggedEvent, PlantEventType } from '../contract/events.js'

/** What a stream needs of the feed it belongs to. */
export interface StreamSettings {
  /** Bytes a stream may have waiting for its reader; past them it is cut after its last whole event. */
  bufferBytes: number
  /** Told, for every event written, the seconds from its commit to the write. */
  onSent: (lagSeconds: number) => void
}

/**
 * One `GET /events` connection: a cursor (the last sequence it has passed) and the body it writes
 * Server-Sent Events into. The feed (feed.ts) offers it each batch of the log as it is read; events
 * at or below the cursor are skipped, so the seam between catching up and going live has neither a
 * gap nor a duplicate. A reader that lets more than `bufferBytes` pile up is cut after its last whole
 * event, and resumes from the log with Last-Event-ID.
 */
export class EventStream {
  readonly body = new PassThrough()
  readonly principal: string
  readonly #types: ReadonlySet<PlantEventType> | undefined
  readonly #settings: StreamSettings
  cursor: bigint
  live = false
  #ended = false

  constructor (principal: string, cursor: bigint, types: ReadonlySet<PlantEventType> | undefined, settings: StreamSettings) {
    this.principal = principal
    this.cursor = cursor
    this.#types = types
    this.#settings = settings
  }

  get ended () {
    return this.#ended || this.body.destroyed
  }

  /**
   * Writes the events after the cursor, in order, as many whole events as the buffer has room for.
   * A live stream with no room left is cut (its reader resumes from the log); one catching up keeps
   * its cursor at the last event written and is given the rest once its reader has read. Answers
   * false once the stream has ended.
   */
  write (events: readonly LoggedEvent[]): boolean {
    if (this.ended) return false
    const now = Date.now()
    let room = this.#settings.bufferBytes - this.#pending
    let text = ''
    for (const event of events) {
      if (event.sequence <= this.cursor) continue
      if (this.#types === undefined || this.#types.has(event.type)) {
        const chunk = sseEvent(event)
        room -= Buffer.byteLength(chunk)
        if (room < 0) {
          this.body.write(text)
          if (this.live) this.end()
          return !this.live
        }
        text += chunk
        this.#settings.onSent((now - event.createdAt) / 1000)
      }
      this.cursor = event.sequence
    }
    if (text !== '') this.body.write(text)
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
