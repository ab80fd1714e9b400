import type { Plant } from './plant-store.js'

/** A plant as stored: with its creation time, which moving a whole store keeps. */
export interface PlantRecord {
  id: bigint
  name: string
  tag: string | null
  /** Unix ms. */
  createdAt: bigint
}

/** What an import does with a plant whose id is stored with different content. */
export type ConflictMode = 'fail' | 'skip' | 'replace'

export interface ImportOptions {
  onConflict: ConflictMode
  /** Write newPlant webhook events for the plants created (off by default: an import is not news). */
  notify: boolean
}

/** What one batch of an import came to. */
export interface ImportResult {
  created: number
  /** Already stored with the same content. */
  identical: number
  /** Stored with other content and left so (`skip`). */
  kept: number
  /** Stored with other content and overwritten (`replace`). */
  replaced: number
  /** With `fail`: the batch index of the first conflicting plant; the plants before it are committed, it and the rest not. */
  conflictAt?: number
}

/** How many rows of each kind a store holds: a copy goes only into a store where all are 0. */
export interface StoreContents { plants: number, tokens: number, subscriptions: number, deliveries: number }

/** A table's row as the driver gives it, by column: integers as bigint, blobs as Buffer. */
export type Row = Record<string, unknown>

/** Everything but the plants: tokens (their hashes), subscriptions (their secrets), undelivered events and live Idempotency-Keys. */
export interface StoreMetadata {
  tokens: Row[]
  subscriptions: Row[]
  deliveries: Row[]
  /** Keys not yet expired, so that a client's retry after the move is still answered from its key. */
  idempotencyKeys: Row[]
}

/** Moving data in and out of a whole store (plantstore export, import, copy and backup). */
export interface BulkStore {
  /** Every plant in id order, a batch at a time, streamed from the database (never all in memory). */
  plants (batchSize: number): AsyncIterable<PlantRecord[]>
  /** Imports a batch in one durable transaction, as creates would (see ImportResult for conflicts). */
  importPlants (plants: Plant[], options: ImportOptions): Promise<ImportResult>
  contents (): Promise<StoreContents>
  metadata (): Promise<StoreMetadata>
  /** Writes a store's plants and metadata, as they are (ids, hashes, secrets, times), into this one, which must be empty. */
  restore (plants: AsyncIterable<PlantRecord[]>, metadata: StoreMetadata, onPlants?: (count: number) => void): Promise<void>
  /** A consistent copy of the live store at `path`, checked by integrity_check (SQLite only; see BackupUnsupported). */
  backup (path: string): Promise<{ pages: number }>
}
