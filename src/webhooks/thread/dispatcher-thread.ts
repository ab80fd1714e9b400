import type { MessagePort, Worker } from 'node:worker_threads'
import type { DatabaseUrl } from '../../config/config.js'
import { spawnWorker } from '../../lib/worker-thread.js'
import type { Dispatcher, DispatcherOptions, DispatcherSettings } from '../dispatcher.js'
import type { Log, LogLevel } from '../log.js'

/** The app's logger (pino), whose level tells the thread which lines to send at all. */
export type ThreadLog = Log & { level: string }

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']

/** Asks a dispatcher thread to stop: it lets its attempts in flight finish, then exits. */
function stopThread (thread: Worker): Promise<void> {
  return new Promise((resolve) => {
    thread.once('exit', () => resolve())
    thread.postMessage({ stop: true })
  })
}

interface FromThread {
  log?: { level: LogLevel, fields: object, msg: string }
  metrics?: { outcomes: Record<'delivered' | 'failed' | 'given_up', number>, lags: number[], concurrency: Array<[number, number]> }
  refreshed?: number
  unsubscribed?: true
  stopped?: true
}

/**
 * The dispatcher in a thread of its own (dispatcher-worker.ts), seen from the main thread: wakes are
 * coalesced to one message per turn of the event loop, and the thread's metrics and log lines are
 * handed to the app's. The thread runs while anyone subscribes: it starts with the first subscriber
 * and ends once the last one is removed, so a store nobody subscribes to spends no memory on it (an
 * isolate, a connection, the senders' sockets). A removed subscriber's backlog is given up, so none is
 * left to send. While no thread runs, `hasSubscribers` is asked at each safety poll; while one runs, it
 * reads the subscribers itself at its own poll and says when none are left. A thread that dies is
 * started again.
 */
export class DispatcherThread implements Dispatcher {
  readonly #database: DatabaseUrl
  readonly #options: DispatcherOptions
  readonly #log: ThreadLog
  readonly #connectWriter: (() => MessagePort) | undefined
  readonly #hasSubscribers: () => Promise<boolean>
  readonly #refreshes = new Map<number, () => void>()
  #thread: Worker | undefined
  /** Set while a thread ends because nobody subscribes any more; resolved when it has exited. */
  #ending: Promise<void> | undefined
  #watch: NodeJS.Timeout | undefined
  /** The check of the subscribers under way, if any: one at a time. */
  #checking: Promise<void> | undefined
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
    // A running thread watches the subscribers itself; a poll finding a check still under way lets it be.
    this.#watch = setInterval(() => {
      if (this.#thread === undefined && this.#checking === undefined) this.#checkSubscribers().catch(() => {})
    }, this.#options.pollMs)
    this.#watch.unref()
    this.#checkSubscribers().catch(() => {})
  }

  /** Starts the thread if anyone subscribes and none runs; ends it if nobody does and one runs. One check at a time. */
  async #checkSubscribers (): Promise<void> {
    const previous = this.#checking
    const check = (async () => {
      await previous?.catch(() => {})
      await this.#ending
      const subscribed = await this.#hasSubscribers()
      if (this.#stopping !== undefined) return
      if (subscribed && this.#thread === undefined) {
        this.#spawn()
        this.#log.info({}, 'webhook dispatcher thread started: there is a subscriber')
      } else if (!subscribed && this.#thread !== undefined) {
        await this.#end(this.#thread)
        this.#log.info({}, 'webhook dispatcher thread ended: nobody subscribes')
      }
    })()
    this.#checking = check
    try {
      await check
    } finally {
      if (this.#checking === check) this.#checking = undefined
    }
  }

  /** Ends a thread nobody needs. */
  #end (thread: Worker): Promise<void> {
    this.#ending = stopThread(thread).finally(() => {
      this.#ending = undefined
      this.#concurrency = new Map()
    })
    return this.#ending
  }

  #spawn () {
    const { onAttempt, onDelivered, ...settings } = this.#options
    const writerPort = this.#connectWriter?.()
    const levels = (['debug', 'info', 'warn', 'error'] as const).filter((level) => LEVELS.indexOf(level) >= LEVELS.indexOf(this.#log.level))
    const thread = spawnWorker(import.meta.url, 'dispatcher-worker', {
      name: 'webhook-dispatcher',
      workerData: { database: this.#database, settings: settings satisfies DispatcherSettings, writerPort, levels },
      transferList: writerPort === undefined ? [] : [writerPort]
    })
    thread.on('message', (message: FromThread) => this.#receive(message))
    thread.on('error', (error) => this.#log.error({ err: error }, 'the webhook dispatcher thread failed'))
    thread.on('exit', () => {
      if (this.#thread !== thread) return
      this.#thread = undefined
      if (this.#stopping !== undefined || this.#ending !== undefined) return
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
    await this.#checkSubscribers()
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
    this.#stopping ??= (async () => {
      // A thread already ending is only waited for.
      await this.#ending
      if (this.#thread !== undefined) await stopThread(this.#thread)
    })()
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
    if (message.unsubscribed === true) this.#checkSubscribers().catch(() => {})
    if (message.refreshed !== undefined) {
      this.#refreshes.get(message.refreshed)?.()
      this.#refreshes.delete(message.refreshed)
    }
  }
}
