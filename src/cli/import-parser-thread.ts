import type { Worker } from 'node:worker_threads'
import { spawnWorker } from '../lib/worker-thread.js'
import type { ParsedLines } from './import-lines.js'

/** A chunk of the input, or (no chunk) its end. */
export interface ToParserThread { chunk?: string }

interface Waiting { resolve: (parsed: ParsedLines) => void, reject: (error: Error) => void }

/**
 * An import's line parser on a thread of its own: while the main thread stores a batch, the thread
 * parses and validates the next lines, so the two run on two cores. Chunks are answered in the order
 * they were given.
 */
export class ParserThread {
  readonly #thread: Worker
  readonly #waiting: Waiting[] = []
  #failure: Error | undefined

  constructor () {
    // Parsing allocates a short-lived object per value: a young generation that holds a chunk's worth.
    this.#thread = spawnWorker(import.meta.url, 'import-parser-worker', { resourceLimits: { maxYoungGenerationSizeMb: 32 } })
    this.#thread.on('message', (parsed: ParsedLines) => { this.#waiting.shift()?.resolve(parsed) })
    this.#thread.on('error', (error) => { this.#fail(new Error(`the import's parser thread failed: ${error.message}`)) })
    this.#thread.on('exit', () => { this.#fail(new Error('the import\'s parser thread has ended')) })
  }

  /** The lines `chunk` completes, as ParsedLines. */
  parse (chunk: string): Promise<ParsedLines> {
    return this.#ask({ chunk })
  }

  /** The last line, when the input did not end with a newline. */
  end (): Promise<ParsedLines> {
    return this.#ask({})
  }

  async close (): Promise<void> {
    await this.#thread.terminate()
  }

  #ask (message: ToParserThread): Promise<ParsedLines> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure)
    const answer = new Promise<ParsedLines>((resolve, reject) => {
      this.#waiting.push({ resolve, reject })
      this.#thread.postMessage(message)
    })
    // An answer is awaited later, in order; one that fails first (the import stopped) is not an error.
    answer.catch(() => {})
    return answer
  }

  #fail (error: Error) {
    this.#failure ??= error
    for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#failure)
  }
}
