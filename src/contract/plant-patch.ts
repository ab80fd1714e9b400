import type { Plant } from './plant.js'
import { toPlant } from './plant.js'

/**
 * A JSON Merge Patch (RFC 7396) of a plant, as validated: a `name` to set, a `tag` to set or (null) to
 * remove; what it leaves out stays. Unknown members were dropped by validation.
 */
export interface PlantPatch { name?: string, tag?: string | null }

/** The plant after the patch. */
export function patched (current: Plant, patch: PlantPatch): Plant {
  return toPlant(current.id, patch.name ?? current.name, patch.tag === undefined ? current.tag : patch.tag)
}

/** Whether two plants hold the same content (a patch that changes nothing writes no event). */
export const sameContent = (a: Plant, b: Plant) => a.name === b.name && a.tag === b.tag
