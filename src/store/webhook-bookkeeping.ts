// What both dialects decide the same way about deliveries: a batch of attempts' effect on health, and retention's choices.

/** One attempt's outcome as a subscription's health counts it. */
export interface HealthAttempt { subscriptionId: number, at: number, delivered: boolean, error: string | null }

/** A batch of attempts' effect on one subscription's health (both dialects write it in one statement per subscription). */
export interface HealthChange {
  subscriptionId: number
  /** The batch's last success, if it had one: then the counts start again from it. */
  lastSuccessAt: number | null
  /** Failures after the batch's last success (or all of them, with none). */
  failures: number
  /** The first of those failures, if any: where the disable clock starts when it is not running already. */
  firstFailureAt: number | null
  /** The newest attempt's error (null: it succeeded). */
  lastError: string | null
}

/** Folds a batch of attempts, in the order they ended, into each subscription's health change. */
export function healthChanges (attempts: HealthAttempt[]): HealthChange[] {
  const changes = new Map<number, HealthChange>()
  for (const { subscriptionId, at, delivered, error } of attempts) {
    let change = changes.get(subscriptionId)
    if (change === undefined) changes.set(subscriptionId, change = { subscriptionId, lastSuccessAt: null, failures: 0, firstFailureAt: null, lastError: null })
    if (delivered) Object.assign(change, { lastSuccessAt: at, failures: 0, firstFailureAt: null, lastError: null })
    else Object.assign(change, { failures: change.failures + 1, firstFailureAt: change.firstFailureAt ?? at, lastError: error })
  }
  return [...changes.values()]
}

/** A delivery record as retention looks at it. */
export interface AgedDelivery { id: number, createdAt: number, finishedAt: number | null, pending: boolean, subscriptionDisabled: boolean }

export const DISABLED_PAST_RETENTION = 'given up: its subscription stayed disabled longer than the event retention'

/**
 * Of a batch of delivery records (oldest first), which retention deletes (delivered or given up before
 * `before`), which it gives up (pending, created before it, of a disabled subscription: kept that long,
 * then they would hold the event log back forever), and where the next batch starts (undefined: a
 * record created after `before` was reached, or the end).
 */
export function deliveryRetention (records: AgedDelivery[], before: number, max: number) {
  const remove: number[] = []
  const giveUp: number[] = []
  for (const record of records) {
    if (record.createdAt >= before) return { remove, giveUp, next: undefined }
    if (record.finishedAt !== null && record.finishedAt < before) remove.push(record.id)
    else if (record.pending && record.subscriptionDisabled) giveUp.push(record.id)
  }
  return { remove, giveUp, next: records.length < max ? undefined : records.at(-1)?.id }
}

/** A throttled subscription's window, as its row keeps it: the second it counts, and the deliveries claimed in it. */
export interface QuotaRow { rate_second: bigint | number, rate_used: bigint | number }

/**
 * How many deliveries a throttled claim may take of its subscription's current second (none when the
 * subscription is gone), and the window to write back as `used` + what it took.
 */
export function throttleAllowance (quota: QuotaRow | undefined, now: number, perSecond: number, max: number) {
  const second = Math.floor(now / 1000)
  const used = quota !== undefined && Number(quota.rate_second) === second ? Number(quota.rate_used) : 0
  return { second, used, allowed: quota === undefined ? 0 : Math.min(max, perSecond - used) }
}
