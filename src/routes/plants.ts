import type { FastifyInstance } from 'fastify'
import { operation } from '../contract/document.js'
import { PlantConflict } from '../errors.js'
import type { Plant } from '../store/store.js'

/** A NewPlant as validated: the id is exact (see contract/validators.ts); unknown fields are dropped here. */
interface NewPlantBody { id: bigint, name: string, tag?: string }

export default async function plantRoutes (app: FastifyInstance) {
  app.route({
    ...operation('createPlant'),
    handler: async (request) => {
      const { id, name, tag } = request.body as NewPlantBody
      const plant: Plant = tag === undefined ? { id, name } : { id, name, tag }
      const outcome = await app.store.createPlant(plant)
      if (outcome.kind === 'conflict') throw new PlantConflict(String(id))
      return outcome.plant
    }
  })
}
