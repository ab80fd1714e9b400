/** How often each process writes down which tokens it saw: "last used" is right to within this. */
export const TOKEN_USE_FLUSH_MS = 60_000

/**
 * When each token was last used, kept in memory and written in one statement now and then, so a
 * request never writes for it. A flush that fails keeps what it took for the next one.
 */
export class TokenUsage {
  #seen = new Map<number, number>()
  readonly #write: (uses: ReadonlyMap<number, number>) => Promise<void>
  readonly #timer: NodeJS.Timeout

  constructor (write: (uses: ReadonlyMap<number, number>) => Promise<void>) {
    this.#write = write
    this.#timer = setInterval(() => { this.flush().catch(() => {}) }, TOKEN_USE_FLUSH_MS).unref()
  }

  record (id: number) {
    this.#seen.set(id, Date.now())
  }

  async flush () {
    if (this.#seen.size === 0) return
    const taken = this.#seen
    this.#seen = new Map()
    try {
      await this.#write(taken)
    } catch (error) {
      for (const [id, at] of taken) if (!this.#seen.has(id)) this.#seen.set(id, at)
      throw error
    }
  }

  async close () {
    clearInterval(this.#timer)
    await this.flush()
  }
}
