import type Database from 'better-sqlite3'
import type { GroupCommit } from '../group-commit.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { traceOrigin } from '../../lib/trace-context.js'
import { isPlainList, keysetStart } from '../store.js'
import type { CreateOutcome, Plant, PlantPage, PlantQuery, PlantStore, Precondition, WriteOutcome, WriteRequest, WriteResponse } from '../store.js'
import { guard, opaqueInteger } from './connection.js'
import { dataVersionOncePerTurn } from './data-version.js'
import { LOG_POSITION_SQL } from './outbox.js'
import type { PlantJob } from './plant-jobs.js'
import { createOutcome } from './write-jobs.js'
import type { CreateResult, WriteJob, WriteResult } from './write-jobs.js'

/**
 * Plants on SQLite: plain reads on the main connection, other pages from `pages` (on a file, the page
 * reader thread), writes through the write queue (group commit).
 */
export class SqlitePlants implements PlantStore {
  readonly #writes: GroupCommit<WriteJob, WriteResult>
  readonly #select: Database.Statement<[bigint], PlantRow & { position: bigint }>
  readonly #selectMissing: (id: bigint) => { row: PlantRow | undefined, position: bigint }
  readonly #list: (from: bigint, tag: string | undefined, limit: bigint) => { rows: PlantRow[], position: bigint }
  readonly #pages: (query: PlantQuery) => Promise<PlantPage>
  readonly #dataVersion: () => bigint
  /** Writes this process made (an in-memory store's run on this connection, whose own data_version
   * does not count them). */
  #localWrites = 0

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>, pages: (query: PlantQuery) => Promise<PlantPage>) {
    this.#writes = writes
    this.#pages = pages
    // One statement, one snapshot: the plant and the log position it reflects (a join that always
    // answers a row cost four times as much); a missing plant's position is read again with it.
    this.#select = db.prepare(`SELECT id, name, tag, (${LOG_POSITION_SQL}) AS position FROM plants WHERE id = ?`)
    const position = db.prepare<[], bigint>(LOG_POSITION_SQL).pluck()
    const selectPlant = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
    this.#selectMissing = db.transaction((id: bigint) => ({ row: selectPlant.get(id), position: position.get()! }))
    const list = db.prepare<[bigint, bigint], PlantRow>(`SELECT id, name, tag FROM plants WHERE id >= ? ORDER BY id LIMIT ${opaqueInteger('?')}`)
    const listByTag = db.prepare<[string, bigint, bigint], PlantRow>(`SELECT id, name, tag FROM plants WHERE tag = ? AND id >= ? ORDER BY id LIMIT ${opaqueInteger('?')}`)
    // A deferred transaction: the position and the page are read in one snapshot.
    this.#list = db.transaction((from: bigint, tag: string | undefined, limit: bigint) => ({
      position: position.get()!,
      rows: tag === undefined ? list.all(from, limit) : listByTag.all(tag, from, limit)
    }))
    this.#dataVersion = dataVersionOncePerTurn(db)
  }

  /** On SQLite the dispatcher claims every delivery itself: one writer, and claims cost no round trip. */
  handOff () {}

  async create (plant: Plant): Promise<CreateOutcome> {
    const trace = traceOrigin()
    const result = await this.#writes.submit(trace === undefined ? { op: 'create', plant } : { op: 'create', plant, trace }) as CreateResult
    // After the commit: a read that raced it must not be cached under the version that follows it.
    this.#localWrites++
    return createOutcome(plant, result)
  }

  async list (query: PlantQuery): Promise<PlantPage> {
    const { limit, after, tag } = query
    if (!isPlainList(query)) return this.#pages(query)
    // No id can follow the cursor: an empty page, still with its position.
    const from = keysetStart(after)
    const { rows, position } = guard(() => this.#list(from ?? 0n, tag, from === undefined ? 0n : BigInt(limit)))
    return { plants: rows.map(plantOfRow), position }
  }

  async get (id: bigint) {
    return guard(() => {
      const found = this.#select.get(id)
      if (found !== undefined) return { plant: plantOfRow(found), position: found.position }
      const { row, position } = this.#selectMissing(id)
      return { plant: row === undefined ? undefined : plantOfRow(row), position }
    })
  }

  // Through the one write queue, as creates: on a file the writer thread checks, writes and fsyncs,
  // and the event loop goes on serving meanwhile.
  async replace (plant: Plant, precondition?: Precondition) {
    return this.#write({ op: 'replace', plant, ...this.#extras(precondition) })
  }

  async delete (id: bigint, precondition?: Precondition) {
    return this.#write({ op: 'delete', id, ...this.#extras(precondition) })
  }

  async write (request: WriteRequest): Promise<WriteResponse> {
    const trace = traceOrigin()
    try {
      return await this.#writes.submit({ op: 'write', request: trace === undefined ? request : { ...request, trace } }) as WriteResponse
    } finally {
      this.#localWrites++
    }
  }

  async purgeKeys (now: number, max: number) {
    return await this.#writes.submit({ op: 'purgeKeys', now, max }) as number
  }

  #extras (precondition: Precondition | undefined) {
    const trace = traceOrigin()
    return { ...(precondition !== undefined && { precondition }), ...(trace !== undefined && { trace }) }
  }

  async #write (job: PlantJob): Promise<WriteOutcome> {
    try {
      return await this.#writes.submit(job) as WriteOutcome
    } finally {
      // A read that raced it must not be cached under the version that follows it.
      this.#localWrites++
    }
  }

  /**
   * `PRAGMA data_version` moves with every other connection's commit (creates, other processes, the CLI),
   * from the next turn of the event loop; this process's own writes move `#localWrites` at once.
   */
  readVersion = () => `${guard(this.#dataVersion)}.${this.#localWrites}`
}
