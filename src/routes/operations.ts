import type { FastifyInstance } from 'fastify'
import { stringify } from 'yaml'
import { openapiDocument, operation } from '../contract/document.js'
import { documentServers } from './docs.js'

/** Liveness, readiness and the document itself: no token needed. */
export default async function operationsRoutes (app: FastifyInstance, { publicUrl }: { publicUrl: string | undefined }) {
  app.route({ ...operation('getHealth'), handler: async () => ({ status: 'ok' }) })
  app.route({
    ...operation('getReadiness'),
    handler: async () => {
      await app.store.ping()
      return { status: 'ok' }
    }
  })
  // Serialised once: the document does not change while the process runs. Its servers are this
  // service's (see documentServers), then the original document's. The YAML on its first request: it
  // is rarely asked for, and writing it costs a start more than the rest of the route.
  const served = { ...openapiDocument, servers: [...documentServers(publicUrl), ...(openapiDocument.servers as unknown[])] }
  const documentJson = JSON.stringify(served)
  let documentYaml: string | undefined
  app.route({
    ...operation('getOpenApiDocument'),
    handler: async (_request, reply) => reply.type('application/json; charset=utf-8').send(documentJson)
  })
  app.route({
    ...operation('getOpenApiYaml'),
    handler: async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(documentYaml ??= stringify(served, { lineWidth: 0 }))
  })
}
