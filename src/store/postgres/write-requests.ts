import type { PoolClient } from 'pg'
import type { PlantChange } from '../../contract/events.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import type { OperationOutcome } from '../../contract/write-answers.js'
import { answerOf, decide, failed, keptResponse, keptValues, operationId } from '../plant-operations.js'
import type { KeptAnswer } from '../plant-operations.js'
import type { PlantOperation, WriteRequest, WriteResponse } from '../store.js'
import type { PostgresDatabase } from './database.js'
import { record } from './outbox.js'

/**
 * The write path's statements (here, and a lone create's in plants.ts), each prepared once per
 * connection (a `name`): their texts are fixed, so a connection holds these few and no more.
 */
export const STATEMENTS = {
  create: { name: 'write.create', text: 'INSERT INTO plants (id, name, tag, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING' },
  read: { name: 'write.read', text: 'SELECT id, name, tag FROM plants WHERE id = $1 FOR UPDATE' },
  readMany: { name: 'write.read-many', text: 'SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[]) FOR UPDATE' },
  update: { name: 'write.update', text: 'UPDATE plants SET name = $1, tag = $2 WHERE id = $3' },
  delete: { name: 'write.delete', text: 'DELETE FROM plants WHERE id = $1' },
  // Distinct ids in id order, as concurrent batches take their rows, so two never wait on each other in a
  // cycle. The plants come as one JSON array, as the outbox's changes do (outbox.ts).
  createRun: {
    name: 'write.create-run',
    text: `INSERT INTO plants (id, name, tag, created_at)
  SELECT id, name, tag, $2 FROM json_to_recordset($1::json) AS t (id bigint, name text, tag text) ORDER BY id
  ON CONFLICT (id) DO NOTHING RETURNING id`
  },
  // Keys held by running requests, across instances: a transaction-level advisory lock in a class of its
  // own (the event log's lock is a single-key one).
  keyLock: { name: 'write.key-lock', text: 'SELECT pg_try_advisory_xact_lock(7268002, hashtext($1)) AS locked' },
  kept: { name: 'write.kept', text: 'SELECT request_hash, status, body, etag FROM idempotency_keys WHERE owner = $1 AND key = $2 AND expires_at > $3' },
  keep: {
    name: 'write.keep',
    text: `INSERT INTO idempotency_keys (owner, key, request_hash, status, body, etag, created_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (owner, key) DO UPDATE SET request_hash = excluded.request_hash,
  status = excluded.status, body = excluded.body, etag = excluded.etag, created_at = excluded.created_at, expires_at = excluded.expires_at`
  }
}

/** One operation: the plant read FOR UPDATE (a create inserts first), decided, and its change written. */
export async function apply (client: PoolClient, operation: PlantOperation, trace: string | undefined, now: number) {
  if (operation.op === 'create') {
    const { plant } = operation
    const inserted = await client.query({ ...STATEMENTS.create, values: [plant.id.toString(), plant.name, plant.tag ?? null, now] })
    if (inserted.rowCount === 1) return decide(operation, undefined, trace)
  }
  const { rows: [row] } = await client.query<PlantRow>({ ...STATEMENTS.read, values: [operationId(operation).toString()] })
  // A create whose id another transaction deleted between our insert and our read: as a conflict, rare.
  if (row === undefined && operation.op === 'create') return { outcome: { kind: 'conflict' as const, plant: operation.plant } }
  const decided = decide(operation, row === undefined ? undefined : plantOfRow(row), trace)
  const change = decided.change
  if (change?.type === 'plant.updated') {
    await client.query({ ...STATEMENTS.update, values: [change.plant.name, change.plant.tag ?? null, change.plant.id.toString()] })
  }
  if (change?.type === 'plant.deleted') await client.query({ ...STATEMENTS.delete, values: [change.plant.id.toString()] })
  return decided
}

/**
 * A run of creates of distinct ids in one statement; those whose id was taken are decided against
 * the stored plant, read FOR UPDATE. Distinct ids commute, so the outcomes are those of the creates one
 * by one, in order.
 */
async function applyCreates (client: PoolClient, creates: Array<Extract<PlantOperation, { op: 'create' }>>, trace: string | undefined, now: number) {
  const plants = creates.map((create) => create.plant)
  const rows = JSON.stringify(plants.map((plant) => ({ id: plant.id.toString(), name: plant.name, tag: plant.tag ?? null })))
  const { rows: inserted } = await client.query<{ id: string }>({ ...STATEMENTS.createRun, values: [rows, now] })
  const created = new Set(inserted.map((row) => BigInt(row.id)))
  const taken = plants.filter((plant) => !created.has(plant.id)).map((plant) => plant.id.toString())
  const stored = taken.length === 0
    ? new Map<bigint, PlantRow>()
    : new Map((await client.query<PlantRow>({ ...STATEMENTS.readMany, values: [taken] })).rows.map((row) => [row.id, row]))
  return creates.map((create) => {
    if (created.has(create.plant.id)) return decide(create, undefined, trace)
    const row = stored.get(create.plant.id)
    // Taken, then deleted by another transaction before our read: as a conflict, rare.
    return row === undefined ? { outcome: { kind: 'conflict' as const, plant: create.plant } } : decide(create, plantOfRow(row), trace)
  })
}

/** The consecutive creates of distinct ids from `from` on (at least the one there, when it is a create). */
function createRun (operations: PlantOperation[], from: number): Array<Extract<PlantOperation, { op: 'create' }>> {
  const run: Array<Extract<PlantOperation, { op: 'create' }>> = []
  const ids = new Set<bigint>()
  for (let i = from; i < operations.length; i++) {
    const operation = operations[i]!
    if (operation.op !== 'create' || ids.has(operation.plant.id)) break
    ids.add(operation.plant.id)
    run.push(operation)
  }
  return run
}

/** A lone request's failure, thrown out of its transaction so that all it wrote rolls back. */
class Undone extends Error {
  constructor (readonly response: WriteResponse) { super('rolled back') }
}

/** What one request did: its response, the changes whose events it needs, and whether it must be undone. */
interface Ran { response: WriteResponse, changes: PlantChange[], undo: boolean }

/** One request of a group: its response, or the error its statements met (its savepoint rolled back). */
export type Settled = { response: WriteResponse } | { error: unknown }

/**
 * One request's operations in the group's transaction: the key's lock and kept answer first (held by
 * another running request: key-in-flight), then the operations in order. A failure with a key keeps its
 * answer, its operations undone under a savepoint of their own; one without a key is `undo`ne by the
 * caller with everything the request wrote.
 */
async function run (client: PoolClient, request: WriteRequest, now: number): Promise<Ran> {
  const { key } = request
  const nothing = (response: WriteResponse) => ({ response, changes: [], undo: false })
  if (key !== undefined) {
    const { rows: [lock] } = await client.query<{ locked: boolean }>({ ...STATEMENTS.keyLock, values: [`${key.owner}\n${key.key}`] })
    if (lock?.locked !== true) return nothing({ kind: 'key-in-flight' })
    const { rows: [found] } = await client.query<KeptAnswer>({ ...STATEMENTS.kept, values: [key.owner, key.key, now] })
    if (found !== undefined) return nothing(keptResponse(found, key.hash))
    await client.query('SAVEPOINT operations')
  }
  const outcomes: OperationOutcome[] = []
  const changes: PlantChange[] = []
  const { operations } = request
  let rolledBack = false
  for (let i = 0; i < operations.length && !rolledBack;) {
    const run = createRun(operations, i)
    const decided = run.length > 1 ? await applyCreates(client, run, request.trace, now) : [await apply(client, operations[i]!, request.trace, now)]
    i += decided.length
    for (const { outcome, change } of decided) {
      outcomes.push(outcome)
      if (change !== undefined) changes.push(change)
      rolledBack = failed(outcome)
      if (rolledBack) break
    }
  }
  const answer = answerOf(request, outcomes)
  const response = { kind: 'answered' as const, answer, replayed: false, written: !rolledBack && changes.length > 0, enqueued: false }
  if (rolledBack && key !== undefined) await client.query('ROLLBACK TO SAVEPOINT operations')
  if (key !== undefined) await client.query({ ...STATEMENTS.keep, values: keptValues(key, answer, now) })
  return { response, changes: rolledBack ? [] : changes, undo: rolledBack && key === undefined }
}

/**
 * PATCH, keyed DELETE and POST /batch on PostgreSQL, the requests that arrived together in one
 * transaction (group commit): each under a savepoint of its own (none for a lone request), the events
 * of all appended together at the end (consecutive sequences per request, the log's lock taken once and
 * held shortest), one commit. A request that fails, or whose statements fail, is rolled back to its
 * savepoint alone; a lone one rolls back its transaction.
 */
export async function writeRequests (db: PostgresDatabase, requests: WriteRequest[]): Promise<Settled[]> {
  const grouped = requests.length > 1
  try {
    return await db.transaction(async (client): Promise<Settled[]> => {
      const now = Date.now()
      const ran: Array<Ran | { error: unknown }> = []
      for (const request of requests) {
        if (grouped) await client.query('SAVEPOINT request')
        let one: Ran
        try {
          one = await run(client, request, now)
        } catch (error) {
          if (!grouped) throw error
          await client.query('ROLLBACK TO SAVEPOINT request')
          ran.push({ error })
          continue
        }
        if (one.undo && !grouped) throw new Undone(one.response)
        if (one.undo) await client.query('ROLLBACK TO SAVEPOINT request')
        ran.push(one)
      }
      const enqueued = await record(client, ran.flatMap((one) => 'error' in one ? [] : one.changes), now)
      return ran.map((one) => 'error' in one ? one : { response: one.changes.length > 0 ? { ...one.response, enqueued } : one.response })
    })
  } catch (error) {
    if (!(error instanceof Undone)) throw error
    return [{ response: error.response }]
  }
}
