import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { openapiDocument } from '../contract/document.js'

/**
 * `GET /docs`: an interactive reference of openapi/plantstore.yaml (Swagger UI). Every asset is served
 * from the installed package, so the page works with no internet access; the document is the same
 * object the routes are validated against. The routes under /docs need no token.
 */
export default fp(async (app) => {
  await app.register(swagger, { mode: 'static', specification: { document: openapiDocument as never } })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false },
    // Try-it-out requests go to the server that serves the page, not to the document's first server.
    transformSpecification: (document, request) => ({
      ...document,
      servers: [{ url: `${request.protocol}://${request.host}`, description: 'this server' }]
    })
  })
}, { name: 'docs' })
