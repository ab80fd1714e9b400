import { workerPool } from '../lib/worker-thread.js'
import type { ParsedLines } from './import-lines.js'

/**
 * An import's line parser on a thread of its own: while the main thread stores a batch, the thread
 * parses and validates the next lines, so the two run on two cores. Chunks are answered in order.
 */
export class ParserThread {
  // Parsing allocates a short-lived object per value: a young generation that holds a chunk's worth.
  readonly #thread = workerPool<{ chunk?: string }, ParsedLines>(import.meta.url, 'import-parser-worker', { threads: 1, perThread: 64, youngGenerationMb: 32 })

  /** The lines `chunk` completes. */
  parse (chunk: string): Promise<ParsedLines> {
    return this.#ask({ chunk })
  }

  /** The last line, when the input did not end with a newline. */
  end (): Promise<ParsedLines> {
    return this.#ask({})
  }

  close (): Promise<void> {
    return this.#thread.close()
  }

  #ask (task: { chunk?: string }): Promise<ParsedLines> {
    const answer = this.#thread.run(task)
    // An answer is awaited later, in order; one that fails first (the import stopped) is not an error.
    answer.catch(() => {})
    return answer
  }
}
