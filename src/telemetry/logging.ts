import pino from 'pino'

const CHUNK = 8192

type Flushable = pino.DestinationStream & { flush: () => void, flushSync: () => void }

/**
 * Lines gathered into 8 KiB chunks before they reach pino's destination (SonicBoom). SonicBoom appends
 * each write to the string it buffers and measures that string's byte length on every write, which
 * flattens it: about 7 KB of garbage per 220-byte access line, a third of all a GET allocated. Joining
 * our own array once per chunk is linear. Every line goes through here, so their order is kept.
 */
class ChunkedLines implements pino.DestinationStream {
  readonly #target: Flushable
  #lines: string[] = []
  #length = 0

  constructor (target: Flushable) {
    this.#target = target
  }

  write (line: string) {
    this.#lines.push(line)
    this.#length += line.length
    if (this.#length >= CHUNK) this.#hand()
  }

  /** Hands what is gathered on and starts writing it. */
  flush () {
    this.#hand()
    this.#target.flush()
  }

  /** Writes everything now, synchronously (at exit). */
  flushSync () {
    this.#hand()
    this.#target.flushSync()
  }

  #hand () {
    if (this.#lines.length === 0) return
    this.#target.write(this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join(''))
    this.#lines = []
    this.#length = 0
  }
}

/**
 * stdout for the JSON log, buffered: lines are written 8 KiB at a time (and at least every second),
 * not one write(2) per request. Each chunk is written at once, from this thread (pino's default), not
 * handed to libuv's thread pool: that round trip per chunk cost more than the write, and a log reader
 * that falls behind slows the service rather than growing its memory. What is left is written when the
 * process exits, SIGTERM included; a SIGKILL may lose the last lines.
 */
export function bufferedStdout (): pino.DestinationStream {
  // One per process, as stdout is: an app built again in the same process (tests, an embedding) shares
  // it, instead of adding a timer and an exit listener each time.
  stdoutLines ??= startBufferedStdout()
  return stdoutLines
}

let stdoutLines: ChunkedLines | undefined

function startBufferedStdout () {
  const lines = new ChunkedLines(pino.destination({ dest: 1, sync: true, minLength: CHUNK }))
  setInterval(() => { lines.flush() }, 1000).unref()
  // pino's own exit hook flushes its destination only, so the lines gathered here are handed on first.
  process.once('exit', () => { lines.flushSync() })
  return lines
}
