/** Seconds as m:ss. */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`

/** `1 plant`, `2 plants`: a count with its noun. */
export function counted (count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/**
 * Progress of a long command on stderr, redrawn in place at most four times a second, only while
 * stderr is a terminal (count, rate, time left when the total is known); then one summary line.
 * `--quiet` shows neither.
 */
export class Progress {
  readonly #label: string
  readonly #quiet: boolean
  readonly #live: boolean
  readonly #started = performance.now()
  #count = 0
  #fraction: (() => number) | undefined
  #drawnAt = 0

  constructor (label: string, { quiet = false, total }: { quiet?: boolean, total?: number | (() => number) } = {}) {
    this.#label = label
    this.#quiet = quiet
    this.#live = !quiet && process.stderr.isTTY === true
    if (typeof total === 'number') this.#fraction = () => (total === 0 ? 1 : this.#count / total)
    else if (total !== undefined) this.#fraction = total
  }

  get count (): number {
    return this.#count
  }

  /** Seconds since the command began its work. */
  get seconds (): number {
    return (performance.now() - this.#started) / 1000
  }

  add (count: number) {
    this.#count += count
    if (!this.#live) return
    const now = performance.now()
    if (now - this.#drawnAt < 250) return
    this.#drawnAt = now
    const rate = this.#count / Math.max(this.seconds, 0.001)
    const fraction = this.#fraction?.()
    const left = fraction !== undefined && fraction > 0 && fraction < 1 ? ` · ${clock(this.seconds * (1 - fraction) / fraction)} left` : ''
    process.stderr.write(`\r\x1b[K${this.#label} ${this.#count.toLocaleString('en')} · ${Math.round(rate).toLocaleString('en')}/s${left}`)
  }

  /**
   * Clears the live line and prints `summary`, the time taken and the rate, unless quiet. The rate is
   * `count` (what the summary counts) over the seconds as printed, so a reader's division gives it back.
   */
  done (summary: string, count = this.#count) {
    if (this.#live) process.stderr.write('\r\x1b[K')
    if (this.#quiet) return
    const seconds = Math.max(0.01, Math.round(this.seconds * 100) / 100)
    const rate = Math.round(count / seconds).toLocaleString('en')
    process.stderr.write(`${summary} in ${seconds.toFixed(2)} s (${rate}/s)\n`)
  }
}
