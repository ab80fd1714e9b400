import pino from 'pino'
import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'

/**
 * stdout for the JSON log, buffered: lines are written 4 KiB at a time (and at least every second),
 * not one write(2) per request. pino flushes what is left when the process exits, SIGTERM included; a
 * SIGKILL may lose the last lines.
 */
export function bufferedStdout (): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  setInterval(() => { destination.flush() }, 1000).unref()
  return destination
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/**
 * A request's logger, made only when something logs through it: Fastify makes one per request, and
 * most requests log nothing but their access line (written with its request id by access-log.ts).
 */
class LazyChildLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: FastifyBaseLogger | undefined

  constructor (parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  get level () { return this.#real().level }
  set level (level: string) { this.#real().level = level }
  child (bindings: Bindings, options?: ChildLoggerOptions) { return this.#real().child(bindings, options) }
  fatal (...args: unknown[]) { this.#log('fatal', args) }
  error (...args: unknown[]) { this.#log('error', args) }
  warn (...args: unknown[]) { this.#log('warn', args) }
  info (...args: unknown[]) { this.#log('info', args) }
  debug (...args: unknown[]) { this.#log('debug', args) }
  trace (...args: unknown[]) { this.#log('trace', args) }
  silent () {}

  #log (level: Level, args: unknown[]) {
    (this.#real()[level] as (...a: unknown[]) => void)(...args)
  }

  #real (): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }
}

/** Fastify's childLoggerFactory: a lazy child per request. */
export function lazyChildLogger (this: unknown, logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger
}
