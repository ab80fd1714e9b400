import type Database from 'better-sqlite3'
import type { DeliveryRow } from '../delivery-rows.js'
import type { CreateOutcome, Plant, Subscription, TokenRecord, WriteOutcome, WriteRequest, WriteResponse } from '../store.js'
import { prepareTokenWrites } from './token-writes.js'
import type { TokenWrites } from './token-writes.js'
import { prepareSubscriptionWrites } from './subscription-writes.js'
import type { SubscriptionWrites } from './subscription-writes.js'
import { preparePlantJobs } from './plant-jobs.js'
import type { PlantJob } from './plant-jobs.js'
import type { SqliteSynchronous } from './connection.js'
import { preparePrune } from './prune.js'
import { prepareWriteRequests } from './write-requests.js'
import { prepareSearchIndex } from './search-index.js'
import { prepareOutbox } from './outbox.js'
import { prepareDeliveryJobs } from './delivery-jobs.js'
import type { DeliveryJob } from './delivery-jobs.js'

/**
 * The writes that go through the store's one write queue (on a file, the writer thread): creates,
 * replaces and deletes, and the webhook dispatcher's bookkeeping (claims and attempt outcomes). Plain
 * data, so that they cross to the writer thread by postMessage.
 */
export type WriteJob =
  | { op: 'create', plant: Plant, trace?: string }
  | PlantJob
  | { op: 'write', request: WriteRequest }
  | { op: 'purgeKeys', now: number, max: number }
  | { op: 'tokens', call: CallOf<TokenWrites> }
  | { op: 'subscriptions', call: CallOf<SubscriptionWrites> }
  | DeliveryJob
  | { op: 'prune', before: number, max: number }

/** A create's outcome as it crosses from the writer thread: the plant itself only when it differs (a conflict). */
export type CreateResult = { kind: 'created', enqueued: boolean } | { kind: 'replayed' } | { kind: 'conflict', plant: Plant }

/** A call of one of `W`'s functions, as data: its name and its arguments. */
export type CallOf<W> = { [K in keyof W]: W[K] extends (...args: infer A) => unknown ? { method: K, args: A } : never }[keyof W]

export type WriteResult = CreateResult | WriteOutcome | WriteResponse | TokenRecord | { taken: string } | Subscription | Subscription[] | boolean | undefined | DeliveryRow[] | number | null | { deleted: number, next: number | undefined }

/** The outcome a create's result stands for. */
export function createOutcome (plant: Plant, result: CreateResult): CreateOutcome {
  return result.kind === 'conflict' ? result : { ...result, plant }
}

/**
 * Runs a batch of jobs in one IMMEDIATE transaction, each with its own result, in order (two creates
 * of one id see each other). A created plant's deliveries (the outbox) are written in its transaction.
 * Only a client's writes (and deletions) need the commit's fsync: a batch of bookkeeping alone commits with synchronous=NORMAL
 * (a power cut may lose it, and then an event is sent again: at least once, never lost). The next
 * FULL commit fsyncs the WAL, earlier frames included, so creates stay as durable as configured.
 */
// The jobs whose commit must be as durable as configured: a client's writes, and deletions.
const DURABLE = new Set<WriteJob['op']>(['create', 'replace', 'delete', 'write', 'tokens', 'subscriptions', 'prune', 'pruneDeliveries', 'purgeKeys'])

export function createWriteRunner (db: Database.Database, synchronous: SqliteSynchronous): (jobs: WriteJob[]) => WriteResult[] {
  const outbox = prepareOutbox(db)
  const deliveries = prepareDeliveryJobs(db)
  const prune = preparePrune(db)
  const search = prepareSearchIndex(db)
  const writeRequest = prepareWriteRequests(db, outbox, search)
  const plantJob = preparePlantJobs(writeRequest)
  const tokens = prepareTokenWrites(db)
  const subscriptions = prepareSubscriptionWrites(db)

  // A lone create is a batch's create (write-requests.ts), its result made small for the trip back.
  const create = (plant: Plant, trace: string | undefined, now: number, subscribed: boolean): CreateResult => {
    const { outcome, enqueued } = writeRequest.apply({ op: 'create', plant }, trace, now, subscribed)
    if (outcome.kind === 'created') return { kind: 'created', enqueued }
    if (outcome.kind === 'replayed') return { kind: 'replayed' }
    if (outcome.kind === 'conflict') return { kind: 'conflict', plant: outcome.plant }
    throw new Error(`a create cannot end ${outcome.kind}`)
  }
  const run = (job: WriteJob, now: number, subscribed: boolean): WriteResult => {
    switch (job.op) {
      case 'create':
        return create(job.plant, job.trace, now, subscribed)
      case 'replace':
      case 'delete':
        return plantJob(job, now, subscribed)
      case 'write':
        return writeRequest.write(job.request, now, subscribed)
      case 'purgeKeys':
        return writeRequest.purgeKeys(job.now, job.max)
      case 'tokens':
        return (tokens[job.call.method] as (...args: unknown[]) => WriteResult)(...job.call.args)
      case 'subscriptions':
        return (subscriptions[job.call.method] as (...args: unknown[]) => WriteResult)(...job.call.args)
      case 'claim':
        return deliveries.claim(job)
      case 'attempt':
        return deliveries.attempt(job)
      case 'pruneDeliveries':
        return deliveries.pruneDeliveries(job)
      case 'release':
        return deliveries.release(job)
      case 'prune':
        return prune(job.before, job.max)
    }
  }
  const batch = db.transaction((jobs: WriteJob[]) => {
    const now = Date.now()
    const subscribed = outbox.anySubscriber()
    const results = jobs.map((job) => run(job, now, subscribed))
    const attempts = jobs.filter((job) => job.op === 'attempt')
    if (attempts.length > 0) {
      deliveries.health(attempts.map(({ subscriptionId, at, result }) => ({ subscriptionId, at, delivered: result.delivered, error: result.error })))
    }
    return results
  })

  const relaxable = synchronous === 'FULL' || synchronous === 'EXTRA'
  let current = synchronous
  return (jobs) => {
    if (relaxable) {
      const wanted = jobs.some((job) => DURABLE.has(job.op)) ? synchronous : 'NORMAL'
      if (wanted !== current) db.pragma(`synchronous = ${wanted}`)
      current = wanted
    }
    return batch.immediate(jobs)
  }
}
