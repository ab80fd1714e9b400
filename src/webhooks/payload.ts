import { randomUUID } from 'node:crypto'
import type { Plant } from '../store/store.js'

/** The NewPlant body of the newPlant webhook, `{"id":…,"name":…,"tag":…}`, the id digit for digit. */
export function newPlantJson (plant: Plant): string {
  return plant.tag === undefined
    ? `{"id":${plant.id},"name":${JSON.stringify(plant.name)}}`
    : `{"id":${plant.id},"name":${JSON.stringify(plant.name)},"tag":${JSON.stringify(plant.tag)}}`
}

/** A Standard Webhooks message id, one per event. */
export function newMessageId (): string {
  return `msg_${randomUUID().replaceAll('-', '')}`
}
