import type { HandedDeliveries } from '../../store/store.js'
import type { LogLevel } from '../log.js'

/** What the main thread sends its dispatcher thread. */
export interface ToThread {
  /** A wake, numbered (see FromThread.accepting); 0: none. */
  wake?: number
  /** Deliveries creates handed over since the last message. */
  handed?: HandedDeliveries[]
  /** Read the subscribers again, and answer `refreshed` with this number. */
  refresh?: number
  stop?: true
}

/** What a dispatcher thread tells the main thread. */
export interface FromThread {
  log?: { level: LogLevel, fields: object, msg: string }
  metrics?: { outcomes: Record<'delivered' | 'failed' | 'given_up', number>, lags: number[], disabled: number, concurrency: Array<[number, number]> }
  refreshed?: number
  unsubscribed?: true
  /** Its lanes that take deliveries from creates now, as of the `wakes`-th wake it was sent. */
  accepting?: { subscriptions: number[], wakes: number }
  stopped?: true
}
