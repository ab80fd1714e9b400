import type { MessagePort, Worker } from 'node:worker_threads'
import type { DatabaseUrl } from '../config.js'
import { spawnWorker } from '../worker-thread.js'
import type { Dispatcher, DispatcherOptions, DispatcherSettings } from './dispatcher.js'
import type { Log, LogLevel } from './log.js'

/** The app's logger (pino), whose level tells the thread which lines to send at all. */
export type ThreadLog = Log & { level: string }

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

interface FromThread {
  log?: { level: LogLevel, fields: object, msg: string }
  metrics?: { outcomes: Record<'delivered' | 'failed' | 'given_up', number>, lags: number[], concurrency: Array<[number, number]> }
  refreshed?: number
  stopped?: true
}

/**
 * The dispatcher in a thread of its own (dispatcher-worker.ts), seen from the main thread: wakes are
 * coalesced to one message per turn of the event loop, and the thread's metrics and log lines are
 * handed to the app's. The thread starts with the first subscriber (until then `hasSubscribers` is
 * asked at each safety poll): a store nobody subscribes to spends no memory on it. A thread that
 * dies is started again.
 */
export class DispatcherThread implements Dispatcher {
  readonly #database: DatabaseUrl
  readonly #options: DispatcherOptions
  readonly #log: ThreadLog
  readonly #connectWriter: (() => MessagePort) | undefined
  readonly #hasSubscribers: () => Promise<boolean>
  readonly #refreshes = new Map<number, () => void>()
  #thread: Worker | undefined
  #watch: NodeJS.Timeout | undefined
  #concurrency = new Map<number, number>()
  #wakeScheduled = false
  #stopping: Promise<void> | undefined
  #seq = 0

  constructor (database: DatabaseUrl, options: DispatcherOptions, log: ThreadLog,
    hasSubscribers: () => Promise<boolean>, connectWriter?: () => MessagePort) {
    this.#database = database
    this.#options = options
    this.#log = log
    this.#hasSubscribers = hasSubscribers
    this.#connectWriter = connectWriter
  }

  start () {
    this.#watch = setInterval(() => { this.#startWhenSubscribed().catch(() => {}) }, this.#options.pollMs)
    this.#watch.unref()
    this.#startWhenSubscribed().catch(() => {})
  }

  async #startWhenSubscribed () {
    if (this.#thread !== undefined || this.#stopping !== undefined || !(await this.#hasSubscribers())) return
    if (this.#thread !== undefined || this.#stopping !== undefined) return
    clearInterval(this.#watch)
    this.#spawn()
  }

  #spawn () {
    const { onAttempt, onDelivered, ...settings } = this.#options
    const writerPort = this.#connectWriter?.()
    const levels = (['debug', 'info', 'warn', 'error'] as const).filter((level) => LEVELS.indexOf(level) >= LEVELS.indexOf(this.#log.level))
    const thread = spawnWorker(import.meta.url, 'dispatcher-worker', {
      name: 'webhook-dispatcher',
      workerData: { database: this.#database, settings: settings satisfies DispatcherSettings, writerPort, levels },
      transferList: writerPort === undefined ? [] : [writerPort],
      // It allocates little at a time: a small young generation keeps its memory small.
      resourceLimits: { maxYoungGenerationSizeMb: 8 }
    })
    thread.on('message', (message: FromThread) => this.#receive(message))
    thread.on('error', (error) => this.#log.error({ err: error }, 'the webhook dispatcher thread failed'))
    thread.on('exit', () => {
      if (this.#thread !== thread) return
      this.#thread = undefined
      if (this.#stopping !== undefined) return
      this.#log.error({}, 'the webhook dispatcher thread ended; starting another')
      setTimeout(() => { if (this.#stopping === undefined) this.#spawn() }, 1000).unref()
    })
    this.#thread = thread
  }

  wake () {
    if (this.#wakeScheduled || this.#thread === undefined) return
    this.#wakeScheduled = true
    setImmediate(() => {
      this.#wakeScheduled = false
      this.#thread?.postMessage({ wake: true })
    })
  }

  async refresh (): Promise<void> {
    await this.#startWhenSubscribed()
    const thread = this.#thread
    if (thread === undefined) return
    const seq = ++this.#seq
    return new Promise((resolve) => {
      this.#refreshes.set(seq, resolve)
      thread.postMessage({ refresh: seq })
    })
  }

  concurrency () {
    return this.#concurrency
  }

  stop (): Promise<void> {
    clearInterval(this.#watch)
    this.#stopping ??= new Promise<void>((resolve) => {
      const thread = this.#thread
      if (thread === undefined) return resolve()
      thread.once('exit', () => resolve())
      thread.postMessage({ stop: true })
    })
    return this.#stopping
  }

  #receive (message: FromThread) {
    if (message.log !== undefined) this.#log[message.log.level](message.log.fields, message.log.msg)
    if (message.metrics !== undefined) {
      const { outcomes, lags, concurrency } = message.metrics
      for (const [outcome, count] of Object.entries(outcomes) as Array<[keyof typeof outcomes, number]>) {
        if (count > 0) this.#options.onAttempt?.(outcome, count)
      }
      for (const lag of lags) this.#options.onDelivered?.(lag)
      this.#concurrency = new Map(concurrency)
    }
    if (message.refreshed !== undefined) {
      this.#refreshes.get(message.refreshed)?.()
      this.#refreshes.delete(message.refreshed)
    }
  }
}
