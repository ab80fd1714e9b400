import type Database from 'better-sqlite3'
import type { GroupCommit } from '../group-commit.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { keysetStart } from '../store.js'
import type { CreateOutcome, Plant, PlantQuery, PlantStore, Precondition, WriteOutcome } from '../store.js'
import { guard, opaqueInteger } from './connection.js'
import { createOutcome } from './write-jobs.js'
import type { CreateResult, WriteJob, WriteResult } from './write-jobs.js'

/** Plants on SQLite: reads on the main connection, creates through the write queue (group commit). */
export class SqlitePlants implements PlantStore {
  readonly #writes: GroupCommit<WriteJob, WriteResult>
  readonly #select: Database.Statement<[bigint], PlantRow>
  readonly #list: Database.Statement<[bigint, bigint], PlantRow>
  readonly #listByTag: Database.Statement<[string, bigint, bigint], PlantRow>
  readonly #replace: (plant: Plant, precondition?: Precondition) => WriteOutcome
  readonly #delete: (id: bigint, precondition?: Precondition) => WriteOutcome
  readonly #dataVersion: Database.Statement<[], bigint>
  /** Writes this process made (an in-memory store's creates, and replaces and deletes, run on this
   * connection, whose own data_version does not count them). */
  #localWrites = 0

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>) {
    this.#writes = writes
    this.#select = db.prepare('SELECT id, name, tag FROM plants WHERE id = ?')
    this.#list = db.prepare(`SELECT id, name, tag FROM plants WHERE id >= ? ORDER BY id LIMIT ${opaqueInteger('?')}`)
    this.#listByTag = db.prepare(`SELECT id, name, tag FROM plants WHERE tag = ? AND id >= ? ORDER BY id LIMIT ${opaqueInteger('?')}`)
    this.#dataVersion = db.prepare<[], bigint>('PRAGMA data_version').pluck()
    const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
    const remove = db.prepare('DELETE FROM plants WHERE id = ?')
    // Read, check and write in one IMMEDIATE transaction: no other writer can slip in between.
    const guardedWrite = db.transaction((id: bigint, precondition: Precondition | undefined, apply: (current: Plant) => Plant): WriteOutcome => {
      const row = this.#select.get(id)
      if (row === undefined) return { kind: 'missing' }
      const current = plantOfRow(row)
      if (precondition !== undefined && !precondition(current)) return { kind: 'precondition-failed', plant: current }
      return { kind: 'done', plant: apply(current) }
    })
    this.#replace = (plant, precondition) => guardedWrite.immediate(plant.id, precondition, () => {
      update.run(plant.name, plant.tag ?? null, plant.id)
      return plant
    })
    this.#delete = (id, precondition) => guardedWrite.immediate(id, precondition, (current) => {
      remove.run(id)
      return current
    })
  }

  async create (plant: Plant): Promise<CreateOutcome> {
    const result = await this.#writes.submit({ op: 'create', plant }) as CreateResult
    // After the commit: a read that raced it must not be cached under the version that follows it.
    this.#localWrites++
    return createOutcome(plant, result)
  }

  async list ({ limit, after, tag }: PlantQuery) {
    const from = keysetStart(after)
    if (from === undefined) return []
    return guard(() => (tag === undefined
      ? this.#list.all(from, BigInt(limit))
      : this.#listByTag.all(tag, from, BigInt(limit))).map(plantOfRow))
  }

  async get (id: bigint) {
    return guard(() => {
      const row = this.#select.get(id)
      return row === undefined ? undefined : plantOfRow(row)
    })
  }

  async replace (plant: Plant, precondition?: Precondition) {
    try {
      return guard(() => this.#replace(plant, precondition))
    } finally {
      this.#localWrites++
    }
  }

  async delete (id: bigint, precondition?: Precondition) {
    try {
      return guard(() => this.#delete(id, precondition))
    } finally {
      this.#localWrites++
    }
  }

  /** `PRAGMA data_version` moves with every other connection's commit (creates, other processes, the CLI). */
  readVersion = () => `${guard(() => this.#dataVersion.get())}.${this.#localWrites}`
}
