import { INT64_MAX, INT64_MIN } from '../contract/int64.js'
import type { Precondition, Refusal } from '../contract/etag.js'
import type { Filter } from '../contract/filter.js'
import type { Plant } from '../contract/plant.js'
import type { DeliveryHandoff } from './delivery-handoff.js'
import type { PlantPatch } from '../contract/plant-patch.js'
import type { WriteAnswer } from '../contract/write-answers.js'

export type { Plant, PlantRow } from '../contract/plant.js'

export type CreateOutcome =
  /** `enqueued`: webhook deliveries wait for it in the outbox, so the dispatcher has work (those handed over do not wait). */
  | { kind: 'created', plant: Plant, enqueued: boolean }
  | { kind: 'replayed', plant: Plant }
  | { kind: 'conflict', plant: Plant }

/** A create of an id already stored: an identical replay, or a conflict; either way the stored plant. */
export function sameOrConflict (plant: Plant, stored: Plant): CreateOutcome {
  return { kind: stored.name === plant.name && stored.tag === plant.tag ? 'replayed' : 'conflict', plant: stored }
}

/**
 * A replace or delete: done (`enqueued`: webhook deliveries were written, for subscriptions that chose
 * its type), no such plant, or the caller's precondition (If-Match, If-None-Match) refused the current plant.
 */
export type WriteOutcome =
  | { kind: 'done', plant: Plant, enqueued: boolean }
  | { kind: 'missing' }
  | { kind: 'precondition-failed', plant: Plant, refusal: Refusal }

// If-Match and If-None-Match (contract/etag.ts), checked inside the write's transaction.
export type { Precondition }

/** One write of a request to `write` (PATCH, a keyed DELETE, each operation of POST /batch): plain data. */
export type PlantOperation =
  | { op: 'create', plant: Plant }
  | { op: 'replace', plant: Plant, precondition?: Precondition }
  | { op: 'patch', id: bigint, patch: PlantPatch, precondition?: Precondition }
  | { op: 'delete', id: bigint, precondition?: Precondition }

/** An Idempotency-Key as kept: its owner (Principal.key), the key, the request's hash, and when it expires. */
export interface IdempotencyKey { owner: string, key: string, hash: string, expiresAt: number }

/**
 * Writes in one transaction, all or nothing: a batch answered by batchAnswer, or one operation answered
 * by singleAnswer (contract/write-answers.ts). With a key, the answer is kept in the same transaction,
 * and a request whose key is kept is answered from it.
 */
export interface WriteRequest {
  operations: PlantOperation[]
  answer: 'batch' | 'single'
  key?: IdempotencyKey
  trace?: string
}

/**
 * A write request's answer (`replayed`: the one kept for its key; `written`: events were written,
 * `enqueued`: webhook deliveries wait), or why its key refused it: kept for another request, or held
 * by a request still running (on PostgreSQL, in another instance).
 */
export type WriteResponse =
  | { kind: 'answered', answer: WriteAnswer, replayed: boolean, written: boolean, enqueued: boolean }
  | { kind: 'key-reused' }
  | { kind: 'key-in-flight' }

/** The orders a list can take; ties are broken by id in the same direction. */
export const PLANT_ORDERS = ['id', 'id desc', 'name', 'name desc'] as const
export type PlantOrder = typeof PLANT_ORDERS[number]

export interface PlantQuery {
  limit: number
  /** Keyset pagination in id order: only ids greater than this. */
  after?: bigint
  tag?: string
  filter?: Filter
  /** Words each of which must start a word of the name (case- and accent-insensitive). */
  search?: string[]
  /** Default `id`. */
  order?: PlantOrder
  /** Keyset pagination in the other orders: only plants after this one in the order. */
  from?: { id: bigint, name: string }
  /** Count every plant the query matches (not only the page): `estimated` may answer from statistics. */
  count?: 'exact' | 'estimated'
}

/** A list as every release has read it (id order, at most a tag): each store keeps its own statements for it. */
export const isPlainList = (query: PlantQuery) =>
  query.filter === undefined && query.search === undefined && (query.order ?? 'id') === 'id' && query.count === undefined

/** A page of plants, the log position it reflects and, when asked, the count of all that match. */
export interface PlantPage { plants: Plant[], position: bigint, total?: number }

/**
 * Keyset pagination as `id >= start`: the smallest id after the cursor (the smallest int64 without one),
 * or undefined when no id can follow it.
 */
export function keysetStart (after: bigint | undefined): bigint | undefined {
  if (after === undefined) return INT64_MIN
  return after === INT64_MAX ? undefined : after + 1n
}

/**
 * Plants, in one database. Every create, replace and delete appends its event to the log in its own
 * transaction. A read answers with the log position it reflects: every event up to it, none after,
 * read in one snapshot with the plants (so that reading, then streaming from there, misses nothing).
 */
export interface PlantStore {
  /**
   * Inserts the plant unless its id exists; the database, not a read-then-write, decides. A created
   * plant's webhook deliveries (payload NewPlant JSON) are written in the same transaction. Answered
   * only once committed durably.
   */
  create (plant: Plant): Promise<CreateOutcome>
  /** Plants in the query's order, with the log position the read reflects (and their count), in one snapshot. */
  list (query: PlantQuery): Promise<PlantPage>
  /** A plant (undefined when there is none), with the log position the read reflects. */
  get (id: bigint): Promise<{ plant: Plant | undefined, position: bigint }>
  /** Replaces name and tag of an existing plant, atomically with the precondition check. */
  replace (plant: Plant, precondition?: Precondition): Promise<WriteOutcome>
  /** Deletes a plant, atomically with the precondition check; `done` carries the deleted plant. */
  delete (id: bigint, precondition?: Precondition): Promise<WriteOutcome>
  /** Applies a request's operations in order in one transaction, all or nothing (see WriteRequest). */
  write (request: WriteRequest): Promise<WriteResponse>
  /** Deletes up to `max` Idempotency-Keys expired at `now`; answers how many went. */
  purgeKeys (now: number, max: number): Promise<number>
  /**
   * From now on, creates hand the deliveries they write to this dispatcher, claimed for it, where it
   * takes them (DeliveryHandoff). A store that leaves every delivery to claims does nothing here.
   */
  handOff (handoff: DeliveryHandoff): void
}
