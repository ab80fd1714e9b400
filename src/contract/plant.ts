/**
 * The plant, in every shape it takes: as the API and the store hold it (`Plant`, id exact), mapped from
 * a database row or a request body in exactly one function each, and written as JSON for the API and
 * for events.
 */
export interface Plant {
  id: bigint
  name: string
  tag?: string
}

/** A plant row as both drivers give it (the id as a bigint, no tag as NULL). */
export interface PlantRow { id: bigint, name: string, tag: string | null }

/** A plant from its parts, a missing tag as null or undefined: the one mapping into `Plant`. */
export function toPlant (id: bigint, name: string, tag: string | null | undefined): Plant {
  return tag === null || tag === undefined ? { id, name } : { id, name, tag }
}

/** A plant from a create or replace body; unknown fields are dropped here, so they are never stored. */
export const plantOfBody = (id: bigint, body: { name: string, tag?: string }): Plant => toPlant(id, body.name, body.tag)

/** A plant from its database row. */
export const plantOfRow = (row: PlantRow): Plant => toPlant(row.id, row.name, row.tag)

/**
 * A plant as the API answers it, `{"name":…,"id":…,"tag":…}` (tag only when it has one; the order
 * every release has answered in), the id with every digit: the one serialiser of plant bodies (GET,
 * list, create, replace), of `plantstore export` and of events' data, so they are the same bytes.
 */
export function plantJson (plant: Plant): string {
  return plant.tag === undefined
    ? `{"name":${JSON.stringify(plant.name)},"id":${plant.id}}`
    : `{"name":${JSON.stringify(plant.name)},"id":${plant.id},"tag":${JSON.stringify(plant.tag)}}`
}

/** A page of plants: a JSON array of plantJson. */
export function plantsJson (plants: readonly Plant[]): string {
  let body = '['
  for (let i = 0; i < plants.length; i++) body += (i === 0 ? '' : ',') + plantJson(plants[i]!)
  return `${body}]`
}

/**
 * The NewPlant body of the original document's `newPlant` webhook, `{"id":…,"name":…,"tag":…}`: its
 * own key order, which subscribers have received byte for byte since the first release.
 */
export function newPlantJson (plant: Plant): string {
  return plant.tag === undefined
    ? `{"id":${plant.id},"name":${JSON.stringify(plant.name)}}`
    : `{"id":${plant.id},"name":${JSON.stringify(plant.name)},"tag":${JSON.stringify(plant.tag)}}`
}
