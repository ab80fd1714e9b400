import { GroupCommit } from '../group-commit.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { sameOrConflict } from '../store.js'
import { writeOutcomeOf } from '../plant-operations.js'
import type { CreateOutcome, DeliveryHandoff, Plant, PlantPage, PlantOperation, PlantQuery, PlantStore, Precondition, WriteOutcome, WriteRequest } from '../store.js'
import { traceOrigin } from '../../lib/trace-context.js'
import { CREATE_BATCH, createBatchParams, createBatchSql, outcomeOf } from './create-batch.js'
import type { BatchRow, PendingCreate } from './create-batch.js'
import { record } from './outbox.js'
import { getPlant, listPlants } from './plant-pages.js'
import type { PostgresDatabase } from './database.js'
import { apply, STATEMENTS, writeRequests } from './write-requests.js'
import type { Settled } from './write-requests.js'

/** Requests of more operations than this run in a transaction of their own (see #writes). */
const GROUPED_OPERATIONS = 20

/** Plants on PostgreSQL; concurrent creates are grouped into one statement and one commit. */
export class PostgresPlants implements PlantStore {
  readonly #db: PostgresDatabase
  readonly #creates: GroupCommit<PendingCreate, CreateOutcome>
  readonly #writes: GroupCommit<WriteRequest, Settled>
  #handoff: DeliveryHandoff | undefined

  constructor (db: PostgresDatabase, onBatch?: (creates: number) => void) {
    this.#db = db
    // One batch at a time: what arrives while it commits is the next one, so batches grow with the load
    // and PostgreSQL pays its per-statement and per-commit cost once per batch (with more in flight the
    // batches were smaller, and each create cost PostgreSQL more CPU).
    this.#creates = new GroupCommit((creates: PendingCreate[]) => this.#createBatch(creates), {
      onBatch: (creates) => onBatch?.(creates.length)
    })
    // PATCH, keyed DELETE and small batches the same way: one transaction, one turn of the event log's
    // lock and one commit for what arrived together (PATCHes on one plant: twice the requests a second).
    // 16 requests at most, so that a group's savepoints (two a keyed request) stay under PostgreSQL's 64
    // cached subtransactions. Large batches run alone: grouped, their statements ran one after another on
    // one connection, where alone they run on as many as arrive.
    this.#writes = new GroupCommit((requests: WriteRequest[]) => writeRequests(this.#db, requests), { maxBatch: 16 })
  }

  handOff (handoff: DeliveryHandoff) {
    this.#handoff = handoff
  }

  async create (plant: Plant): Promise<CreateOutcome> {
    return this.#creates.submit({ plant, trace: traceOrigin() })
  }

  /**
   * Group commit: a batch of creates with distinct ids is one statement (create-batch.ts); a repeated
   * id in the batch, and the rare row the statement cannot decide, go one by one afterwards, in order.
   */
  async #createBatch (creates: PendingCreate[]): Promise<CreateOutcome[]> {
    const firsts: PendingCreate[] = []
    const seen = new Set<bigint>()
    for (const create of creates) {
      if (seen.has(create.plant.id)) continue
      seen.add(create.plant.id)
      firsts.push(create)
    }
    const now = Date.now()
    const handoff = this.#handoff
    const leaseUntil = now + (handoff?.leaseMs ?? 0)
    const rows = await this.#db.query<BatchRow>(createBatchSql,
      createBatchParams(firsts, now, { subscriptions: handoff?.subscriptions ?? [], leaseUntil }), CREATE_BATCH)
    const handed = rows.flatMap((row) => row.handed ?? [])
    if (handed.length > 0) handoff!.take({ leaseUntil, rows: handed })
    const rowOf = new Map(firsts.map((create, i) => [create, rows[i]!]))
    const stored = new Map<bigint, Plant>()
    const outcomes: CreateOutcome[] = []
    for (const create of creates) {
      const { plant } = create
      const row = rowOf.get(create)
      // A repeated id is served as if right after its first: against what that one left stored.
      const earlier = stored.get(plant.id)
      const outcome = row !== undefined
        ? outcomeOf(plant, row) ?? await this.#createOne(create)
        : earlier !== undefined ? sameOrConflict(plant, earlier) : await this.#createOne(create)
      stored.set(plant.id, outcome.plant)
      outcomes.push(outcome)
    }
    return outcomes
  }

  async #createOne ({ plant, trace }: PendingCreate): Promise<CreateOutcome> {
    // A plant deleted between our conflict and our read leaves nothing to compare: try again.
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#db.transaction(async (client): Promise<CreateOutcome | undefined> => {
        const now = Date.now()
        const inserted = await client.query({ ...STATEMENTS.create, values: [plant.id.toString(), plant.name, plant.tag ?? null, now] })
        if (inserted.rowCount === 1) {
          return { kind: 'created', plant, enqueued: await record(client, [{ type: 'plant.created', plant, trace }], now) }
        }
        const row = (await client.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = $1', [plant.id.toString()])).rows[0]
        if (row === undefined) return undefined
        return sameOrConflict(plant, plantOfRow(row))
      })
      if (outcome !== undefined || attempt === 3) return outcome ?? { kind: 'conflict', plant }
    }
  }

  async list (query: PlantQuery): Promise<PlantPage> {
    return listPlants(this.#db, query)
  }

  async get (id: bigint) {
    return getPlant(this.#db, id)
  }

  async replace (plant: Plant, precondition?: Precondition) {
    return this.#single({ op: 'replace', plant, ...(precondition !== undefined && { precondition }) })
  }

  async delete (id: bigint, precondition?: Precondition) {
    return this.#single({ op: 'delete', id, ...(precondition !== undefined && { precondition }) })
  }

  async purgeKeys (now: number, max: number) {
    return (await this.#db.query(`DELETE FROM idempotency_keys WHERE (owner, key) IN (
      SELECT owner, key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) RETURNING 1`, [now, max], 'plants.purge-keys')).length
  }

  async write (request: WriteRequest) {
    const traced = { ...request, trace: traceOrigin() }
    const settled = request.operations.length > GROUPED_OPERATIONS ? (await writeRequests(this.#db, [traced]))[0]! : await this.#writes.submit(traced)
    if ('error' in settled) throw settled.error
    return settled.response
  }

  /** A lone replace or delete (PUT, DELETE) in a transaction of its own: read FOR UPDATE, decided and written as a batch's operation is. */
  async #single (operation: Extract<PlantOperation, { op: 'replace' | 'delete' }>): Promise<WriteOutcome> {
    const trace = traceOrigin()
    return this.#db.transaction(async (client) => {
      const now = Date.now()
      const { outcome, change } = await apply(client, operation, trace, now)
      return writeOutcomeOf(outcome, change !== undefined && await record(client, [change], now))
    })
  }
}
