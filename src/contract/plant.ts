import type { Plant } from '../store/store.js'

/**
 * A plant as the API answers it, `{"name":…,"id":…,"tag":…}` (tag only when it has one; the order
 * every release has answered in), the id with every digit: the one serialiser of plant bodies (GET,
 * list, create, replace) and of `plantstore export`, so they are the same bytes. Strings are escaped
 * by JSON.stringify.
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
