import type { MessagePort, Worker } from 'node:worker_threads'
import type { DatabaseUrl } from '../../config/config.js'
import { spawnWorker } from '../../lib/worker-thread.js'
import type { HandedDeliveries } from '../../store/store.js'
import type { FromThread, ToThread } from './messages.js'
import type { Dispatcher, DispatcherOptions, DispatcherSettings } from '../dispatcher.js'
import { leaseMs } from '../settings.js'
import { levelsToSend, relayReports } from './thread-reports.js'
import type { ThreadLog } from './thread-reports.js'

/** Asks a dispatcher thread to stop: it lets its attempts in flight finish, then exits. */
function stopThread (thread: Worker): Promise<void> {
  return new Promise((resolve) => {
    thread.once('exit', () => resolve())
    thread.postMessage({ stop: true })
  })
}

/** What a dispatcher thread needs from the app. */
export interface DispatcherThreadOptions {
  database: DatabaseUrl
  dispatcher: DispatcherOptions
  log: ThreadLog
  /** Asked while no thread runs: whether anyone subscribes now. */
  hasSubscribers: () => Promise<boolean>
  /** The store's writer, where its dialect has one (StoreDialect.connectWriter). */
  connectWriter: (() => MessagePort) | null
  /** When traces are on: the module whose `startOtel` the thread calls to trace its deliveries. */
  tracing?: string
}

/**
 * The dispatcher in a thread of its own (dispatcher-worker.ts), seen from the main thread: wakes and
 * handed deliveries are coalesced to one message per turn of the event loop, and the thread's metrics and log lines are
 * handed to the app's. The thread runs while anyone subscribes: it starts with the first subscriber
 * and ends once the last one is removed, so a store nobody subscribes to spends no memory on it (an
 * isolate, a connection, the senders' sockets). A removed subscriber's backlog is given up, so none is
 * left to send. While no thread runs, `hasSubscribers` is asked at each safety poll; while one runs, it
 * reads the subscribers itself at its own poll and says when none are left. A thread that dies is
 * started again. Every change of the thread's life (start, end, restart, stop) runs in one queue, in
 * order, so no two overlap.
 */
export class DispatcherThread implements Dispatcher {
  readonly #options: DispatcherThreadOptions
  readonly #refreshes = new Map<number, () => void>()
  #thread: Worker | undefined
  #changes: Promise<void> = Promise.resolve()
  #queued = 0
  #stopped = false
  #watch: NodeJS.Timeout | undefined
  #concurrency = new Map<number, number>()
  /** What goes to the thread at the end of this turn of the event loop, once there is any. */
  #message: Required<Pick<ToThread, 'wake' | 'handed'>> | undefined
  /** Wakes sent to this thread (a wake's message carries its number). */
  #wakes = 0
  #seq = 0
  readonly leaseMs: number
  /** The thread's lanes that take deliveries from creates, as it last said. */
  subscriptions: readonly number[] = []

  constructor (options: DispatcherThreadOptions) {
    this.#options = options
    this.leaseMs = leaseMs(options.dispatcher)
  }

  start () {
    // A running thread watches the subscribers itself; a poll finding a change queued lets it be.
    this.#watch = setInterval(() => {
      if (this.#thread === undefined && this.#queued === 0) this.#checkSubscribers().catch(() => {})
    }, this.#options.dispatcher.pollMs)
    this.#watch.unref()
    this.#checkSubscribers().catch(() => {})
  }

  /** Runs one change of the thread's life after the ones queued before it; after stop(), only stop's own. */
  #change (step: () => Promise<void>, final = false): Promise<void> {
    this.#queued++
    const done = this.#changes.then(() => this.#stopped && !final ? undefined : step()).finally(() => { this.#queued-- })
    this.#changes = done.catch(() => {})
    return done
  }

  /** Starts the thread if anyone subscribes and none runs; ends it if nobody does and one runs. */
  #checkSubscribers (): Promise<void> {
    return this.#change(async () => {
      const subscribed = await this.#options.hasSubscribers()
      if (this.#stopped) return
      if (subscribed && this.#thread === undefined) {
        this.#spawn()
        this.#options.log.info({}, 'webhook dispatcher thread started: there is a subscriber')
      } else if (!subscribed && this.#thread !== undefined) {
        await this.#end()
        this.#options.log.info({}, 'webhook dispatcher thread ended: nobody subscribes')
      }
    })
  }

  /** Ends the running thread on purpose (its exit is then not a failure). */
  async #end () {
    const thread = this.#thread
    this.#thread = undefined
    this.subscriptions = []
    if (thread !== undefined) await stopThread(thread)
    this.#concurrency = new Map()
  }

  #spawn () {
    const { database, log, connectWriter, tracing, dispatcher: { onAttempt, onDelivered, onDisabled, spans, ...settings } } = this.#options
    const writerPort = connectWriter?.()
    const levels = levelsToSend(log)
    const thread = spawnWorker(import.meta.url, 'dispatcher-worker', {
      name: 'webhook-dispatcher',
      workerData: { database, settings: settings satisfies DispatcherSettings, writerPort, levels, tracing },
      transferList: writerPort === undefined ? [] : [writerPort]
    })
    thread.on('message', (message: FromThread) => this.#receive(message, thread))
    thread.on('error', (error) => log.error({ err: error }, 'the webhook dispatcher thread failed'))
    thread.on('exit', () => {
      if (this.#thread !== thread) return
      this.#thread = undefined
      this.subscriptions = []
      log.error({}, 'the webhook dispatcher thread ended; starting another')
      setTimeout(() => {
        this.#change(async () => { if (this.#thread === undefined) this.#spawn() }).catch(() => {})
      }, 1000).unref()
    })
    this.#thread = thread
    this.#wakes = 0
  }

  wake () {
    if (this.#thread === undefined) return
    // Something waits in the outbox. Until the thread has seen this wake (and claimed it), a create
    // handing over a newer event could have that one sent first: none is handed over meanwhile.
    this.subscriptions = []
    this.#nextMessage().wake = ++this.#wakes
  }

  /** Handed deliveries go to the thread (were it gone, their lease lapses and a claim takes them). */
  take (handed: HandedDeliveries) {
    if (this.#thread !== undefined) this.#nextMessage().handed.push(handed)
  }

  #nextMessage () {
    if (this.#message === undefined) {
      const message = this.#message = { wake: 0, handed: [] }
      setImmediate(() => {
        this.#message = undefined
        this.#thread?.postMessage(message)
      })
    }
    return this.#message
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
    this.#stopped = true
    return this.#change(() => this.#end(), true)
  }

  #receive (message: FromThread, thread: Worker) {
    const { accepting } = message
    if (accepting !== undefined && thread === this.#thread && accepting.wakes === this.#wakes) this.subscriptions = accepting.subscriptions
    this.#concurrency = relayReports(message, this.#options.log, this.#options.dispatcher) ?? this.#concurrency
    if (message.unsubscribed === true) this.#checkSubscribers().catch(() => {})
    if (message.refreshed !== undefined) {
      this.#refreshes.get(message.refreshed)?.()
      this.#refreshes.delete(message.refreshed)
    }
  }
}
