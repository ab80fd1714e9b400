import type { FastifyInstance } from 'fastify'
import { readFileSync } from 'node:fs'
import { documentUrl, openapiDocument, operation } from '../contract/document.js'

/** Liveness, readiness and the document itself: no token needed. */
export default async function operationsRoutes (app: FastifyInstance) {
  app.route({ ...operation('getHealth'), handler: async () => ({ status: 'ok' }) })
  app.route({
    ...operation('getReadiness'),
    handler: async () => {
      await app.store.ping()
      return { status: 'ok' }
    }
  })
  // Serialised once: the document does not change while the process runs.
  const documentJson = JSON.stringify(openapiDocument)
  const documentYaml = readFileSync(documentUrl, 'utf8')
  app.route({
    ...operation('getOpenApiDocument'),
    handler: async (_request, reply) => reply.type('application/json; charset=utf-8').send(documentJson)
  })
  app.route({
    ...operation('getOpenApiYaml'),
    handler: async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(documentYaml)
  })
}
