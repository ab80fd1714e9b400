import { INT64_MAX, INT64_MIN } from '../int64.js'

/** A plant as the API shows it; `id` is always exact. */
export interface Plant {
  id: bigint
  name: string
  tag?: string
}

export type CreateOutcome =
  /** `enqueued`: webhook deliveries were written for it, so the dispatcher has work. */
  | { kind: 'created', plant: Plant, enqueued: boolean }
  | { kind: 'replayed', plant: Plant }
  | { kind: 'conflict', plant: Plant }

/** A create of an id already stored: an identical replay, or a conflict; either way the stored plant. */
export function sameOrConflict (plant: Plant, stored: Plant): CreateOutcome {
  return { kind: stored.name === plant.name && stored.tag === plant.tag ? 'replayed' : 'conflict', plant: stored }
}

/** A replace or delete: done, no such plant, or the caller's precondition (If-Match) refused the current plant. */
export type WriteOutcome =
  | { kind: 'done', plant: Plant }
  | { kind: 'missing' }
  | { kind: 'precondition-failed', plant: Plant }

/** Decides, inside the write's transaction, whether the write may go ahead on the current plant. */
export type Precondition = (current: Plant) => boolean

export interface PlantQuery {
  limit: number
  /** Keyset pagination: only ids greater than this. */
  after?: bigint
  tag?: string
}

/**
 * Keyset pagination as `id >= start`: the smallest id after the cursor (the smallest int64 without one),
 * or undefined when no id can follow it.
 */
export function keysetStart (after: bigint | undefined): bigint | undefined {
  if (after === undefined) return INT64_MIN
  return after === INT64_MAX ? undefined : after + 1n
}

export const SCOPES = ['plants:read', 'plants:write'] as const
export type Scope = typeof SCOPES[number]

export interface TokenRecord {
  id: number
  name: string
  scopes: Scope[]
  createdAt: Date
  expiresAt: Date | null
  revokedAt: Date | null
}

export interface NewToken {
  name: string
  hash: Buffer
  scopes: Scope[]
  expiresAt: Date | null
}

/**
 * Everything the service keeps. One implementation per database, each in its own file; driver errors
 * never leave an implementation except as StorageUnavailable (see errors.ts) or a domain outcome.
 */
export interface Store {
  /**
   * Inserts the plant unless its id exists; the database, not a read-then-write, decides. A created
   * plant's webhook deliveries (payload NewPlant JSON) are written in the same transaction.
   */
  createPlant (plant: Plant): Promise<CreateOutcome>
  /** Plants in id order. */
  listPlants (query: PlantQuery): Promise<Plant[]>
  getPlant (id: bigint): Promise<Plant | undefined>
  /** Replaces name and tag of an existing plant, atomically with the precondition check. */
  replacePlant (plant: Plant, precondition?: Precondition): Promise<WriteOutcome>
  /** Deletes a plant, atomically with the precondition check; `done` carries the deleted plant. */
  deletePlant (id: bigint, precondition?: Precondition): Promise<WriteOutcome>

  findTokenByHash (hash: Buffer): Promise<(TokenRecord & { hash: Buffer }) | undefined>
  /** Fails with TokenNameTaken when the name is in use. */
  createToken (token: NewToken): Promise<TokenRecord>
  /** Creates the token only when the store has none at all; answers whether it did. */
  createFirstToken (token: NewToken): Promise<boolean>
  listTokens (): Promise<TokenRecord[]>
  /** Revokes by name or numeric id; answers the revoked token, or undefined when none matched. */
  revokeToken (nameOrId: string): Promise<TokenRecord | undefined>

  addSubscription (url: string, secret: string): Promise<Subscription>
  listSubscriptions (): Promise<Subscription[]>
  /** Removes a subscriber; its pending deliveries are given up. Answers whether it existed. */
  removeSubscription (id: number): Promise<boolean>
  /** Claims due deliveries for this dispatcher (see DeliveryClaim). */
  claimDeliveries (claim: DeliveryClaim): Promise<Delivery[]>
  recordAttempt (deliveryId: number, result: AttemptResult): Promise<void>
  /** The most recent deliveries, newest first. */
  listDeliveries (limit: number): Promise<DeliveryReport[]>

  /** Throws StorageUnavailable when the database cannot answer. */
  ping (): Promise<void>
  close (): Promise<void>
}

export interface Subscription {
  id: number
  url: string
  /** `whsec_…`: signs every delivery to this subscriber. */
  secret: string
  createdAt: Date
}

/** One delivery of one event to one subscriber, as a dispatcher claims it. */
export interface Delivery {
  id: number
  messageId: string
  subscriptionId: number
  url: string
  secret: string
  /** The NewPlant JSON, exactly as it is sent. */
  payload: string
  attempts: number
  createdAt: Date
}

export interface DeliveryClaim {
  now: Date
  /** How long a claimed delivery is ours before another dispatcher may take it. */
  leaseMs: number
  /** At most this many deliveries in flight per subscriber, across every dispatcher. */
  perSubscription: number
  max: number
}

/** What an attempt came to: delivered, or not (with when to try again, or null to give up). */
export interface AttemptResult {
  delivered: boolean
  status: number | null
  error: string | null
  nextAttemptAt: Date | null
}

export interface DeliveryReport {
  id: number
  messageId: string
  plantId: bigint
  url: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  lastStatus: number | null
  lastError: string | null
  lastAttemptAt: Date | null
  nextAttemptAt: Date | null
}

export class TokenNameTaken extends Error {
  constructor (name: string) {
    super(`a token named ${name} exists`)
  }
}
