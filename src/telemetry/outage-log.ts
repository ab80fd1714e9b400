import { StoreUnavailable } from '../store/errors.js'
import { displayUrl } from '../lib/display-url.js'

/** The part of a logger an outage is told to. */
interface Logger {
  warn: (fields: object, message: string) => void
  info: (fields: object, message: string) => void
}

// While the database is down, how often it is asked whether it is back.
const PING_EVERY_MS = 1000

/** Whether an error (or a plain one relayed from a thread) is the database being unreachable. */
function isOutage (error: unknown): boolean {
  return error instanceof StoreUnavailable || (typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'StoreUnavailable')
}

/** The first cause's message: the driver's own words, once. */
function rootMessage (error: unknown): string {
  let current = error as { message?: unknown, cause?: unknown }
  while (current.cause !== undefined && current.cause !== null) current = current.cause as typeof current
  return String(current.message ?? current)
}

/**
 * A database outage as the log tells it: one line when it goes down (naming the database, its password
 * masked, and the driver's error once, no stack) and one when it is back, however many requests,
 * polls and tasks failed in between. The store is pinged every second while it is down.
 */
export class OutageLog {
  readonly #log: Logger
  readonly #database: string
  readonly #ping: () => Promise<void>
  #downSince: number | undefined
  #timer: NodeJS.Timeout | undefined

  constructor (log: Logger, database: string, ping: () => Promise<void>) {
    this.#log = log
    this.#database = displayUrl(database)
    this.#ping = ping
  }

  /** Tells an outage, if `error` is one (answers whether it was): logged only when it begins. */
  failed (error: unknown): boolean {
    if (!isOutage(error)) return false
    if (this.#downSince !== undefined) return true
    this.#downSince = Date.now()
    this.#log.warn({ database: this.#database, error: rootMessage(error) }, 'database unreachable; requests get 503 until it is back')
    this.#timer = setInterval(() => {
      this.#ping().then(() => this.#back(), () => {})
    }, PING_EVERY_MS).unref()
    return true
  }

  /** A logger that tells outages here, and passes every other line on. */
  gate<L extends Logger> (log: L): L {
    return new Proxy(log, {
      get: (target, property, receiver) => {
        if (property !== 'warn' && property !== 'error') return Reflect.get(target, property, receiver)
        const write = Reflect.get(target, property, receiver) as (fields: object, message: string) => void
        return (fields: { err?: unknown }, message: string) => {
          if (!this.failed(fields?.err)) write.call(target, fields, message)
        }
      }
    })
  }

  #back () {
    if (this.#downSince === undefined) return
    clearInterval(this.#timer)
    this.#log.info({ database: this.#database, downSeconds: Math.round((Date.now() - this.#downSince) / 1000) }, 'database reachable again')
    this.#downSince = undefined
  }

  stop () {
    clearInterval(this.#timer)
  }
}
