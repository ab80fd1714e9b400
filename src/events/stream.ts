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

  /** Writes the events after the cursor, in order; answers false once the stream has ended (or was cut now). */
  write (events: readonly LoggedEvent[]): boolean {
    if (this.ended) return false
    const now = Date.now()
    let text = ''
    for (const event of events) {
      if (event.sequence <= this.cursor) continue
      this.cursor = event.sequence
      if (this.#types !== undefined && !this.#types.has(event.type)) continue
      text += sseEvent(event)
      this.#settings.onSent((now - event.createdAt) / 1000)
    }
    if (text !== '') this.body.write(text)
    if (this.body.readableLength + this.body.writableLength > this.#settings.bufferBytes) {
      this.end()
      return false
    }
    return true
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
    return this.body.readableLength + this.body.writableLength <= this.#settings.bufferBytes / 2
  }

  end () {
    if (this.#ended) return
    this.#ended = true
    this.body.end()
  }
}
