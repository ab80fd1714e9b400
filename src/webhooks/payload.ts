import { randomUUID } from 'node:crypto'
import type { Plant } from '../store/store.js'

/** The NewPlant body of the newPlant webhook, with the id written digit for digit (no double on the way). */
export function newPlantJson (plant: Plant): string {
  const rest = JSON.stringify(plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag })
  return `{"id":${plant.id},${rest.slice(1)}`
}

/** A Standard Webhooks message id, one per event. */
export function newMessageId (): string {
  return `msg_${randomUUID().replaceAll('-', '')}`
}
