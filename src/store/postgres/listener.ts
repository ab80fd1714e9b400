import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'

// How long a close waits for LISTEN to be answered before ending the connection anyway.
const CLOSE_WAIT_MS = 2000

/**
 * LISTEN on one channel over a connection of its own, reconnecting after a second when it drops.
 * `onSignal` is called for every notification, and also whenever notifications may have been missed
 * (the connection was lost, or has just begun listening), so that a listener never trusts a quiet
 * channel it was not hearing.
 */
export class Listener {
  readonly #url: string
  readonly #channel: string
  readonly #onSignal: () => void
  #client: pg.Client | undefined
  /** Settles once the newest connection listens or has failed to. */
  #listening: Promise<void> = Promise.resolve()
  #closed = false
  #retry: NodeJS.Timeout | undefined

  constructor (url: string, channel: string, onSignal: () => void) {
    this.#url = url
    this.#channel = channel
    this.#onSignal = onSignal
    this.#connect()
  }

  async close () {
    this.#closed = true
    clearTimeout(this.#retry)
    // pg ends a client with a query in flight by destroying its socket, which the server logs as a
    // connection reset: a short-lived process (a CLI command) closed while LISTEN was still on its way.
    // The bound's timer is unreferenced: left running once LISTEN answers, it keeps nothing alive.
    await Promise.race([this.#listening.catch(() => {}), sleep(CLOSE_WAIT_MS, undefined, { ref: false })])
    await this.#client?.end().catch(() => {})
  }

  #connect () {
    if (this.#closed) return
    const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 3000 })
    this.#client = client
    const lost = () => {
      this.#onSignal()
      client.removeAllListeners()
      client.end().catch(() => {})
      if (!this.#closed) this.#retry = setTimeout(() => this.#connect(), 1000).unref()
    }
    client.on('notification', () => this.#onSignal())
    client.on('error', lost)
    client.on('end', lost)
    this.#listening = client.connect()
      .then(() => client.query(`LISTEN ${this.#channel}`))
      .then(() => { this.#onSignal() }, lost)
  }
}
