import { levels } from 'pino'
import type { DispatcherOptions } from '../dispatcher.js'
import type { Log } from '../log.js'
import type { FromThread } from './messages.js'

/** The app's logger (pino), whose level tells the thread which lines to send at all. */
export type ThreadLog = Log & { level: string }

/** The levels of the lines a dispatcher thread sends: those the app's logger writes ('silent' writes none). */
export function levelsToSend (log: ThreadLog) {
  const threshold = levels.values[log.level] ?? Infinity
  return (['debug', 'info', 'warn', 'error'] as const).filter((level) => (levels.values[level] ?? 0) >= threshold)
}

/**
 * A dispatcher thread's report, handed to the app: its log line to the app's logger, its counts to the
 * app's metrics hooks. Answers its lanes' concurrency when the report carries it.
 */
export function relayReports ({ log: line, metrics }: FromThread, log: Log, hooks: DispatcherOptions): Map<number, number> | undefined {
  if (line !== undefined) log[line.level](line.fields, line.msg)
  if (metrics === undefined) return undefined
  const { outcomes, lags, disabled, concurrency } = metrics
  for (let i = 0; i < disabled; i++) hooks.onDisabled?.()
  for (const [outcome, count] of Object.entries(outcomes) as Array<[keyof typeof outcomes, number]>) {
    if (count > 0) hooks.onAttempt?.(outcome, count)
  }
  for (const lag of lags) hooks.onDelivered?.(lag)
  return new Map(concurrency)
}
