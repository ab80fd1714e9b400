import type { EventStream } from './stream.js'

/**
 * The streams open in one process, live or catching up, counted per principal for the caps. A stream
 * is counted from its creation (so a cap checked just before cannot be overrun by requests arriving
 * meanwhile) until its body closes.
 */
export class OpenStreams implements Iterable<EventStream> {
  readonly #all = new Set<EventStream>()
  readonly #perKey = new Map<string, number>()

  /** Counts `stream` until its body closes, then calls `onClose`. */
  add (stream: EventStream, onClose: () => void) {
    const key = stream.owner.key
    this.#all.add(stream)
    this.#perKey.set(key, (this.#perKey.get(key) ?? 0) + 1)
    stream.body.once('close', () => {
      this.#all.delete(stream)
      const left = this.#perKey.get(key)! - 1
      if (left === 0) this.#perKey.delete(key)
      else this.#perKey.set(key, left)
      onClose()
    })
  }

  /** Streams open now for one principal. */
  countFor (key: string): number {
    return this.#perKey.get(key) ?? 0
  }

  get size (): number {
    return this.#all.size
  }

  [Symbol.iterator] () {
    return this.#all[Symbol.iterator]()
  }
}
