import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { openapiDocument } from '../contract/document.js'

// Swagger UI inserts one <style> element of its own, which the package's CSP leaves out; allowing
// exactly its hash (what Chromium reports for it) keeps the console clean without 'unsafe-inline'.
const SWAGGER_UI_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

// Our own name in the top bar, rather than the framework's logo.
const logo = readFileSync(new URL('../docs/logo.svg', import.meta.url))

// The document's answers: the same bytes for every caller, so cacheable, with a validator.
const DOCUMENT_ROUTES = new Set(['/docs/json', '/docs/yaml', '/openapi.json', '/openapi.yaml'])

/**
 * The servers a served document names: `--public-url` when set, else a relative URL, so that
 * "Try it out" calls the server that served the page. Never the request's Host header: a document
 * kept by a shared cache must not carry a host an attacker sent.
 */
export const documentServers = (publicUrl: string | undefined) => [{ url: publicUrl ?? '/', description: 'this server' }]

/** An ETag and a cache lifetime on the document's answer, and 304 when the caller holds it already. */
const cacheableDocument: onSendHookHandler = (request, reply, payload, done) => {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload)
  const etag = `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`
  reply.header('etag', etag).header('cache-control', 'public, max-age=300')
  if (request.headers['if-none-match'] !== etag) return done(null, payload)
  reply.code(304)
  done(null, '')
}

/**
 * `GET /docs`: an interactive reference of openapi/plantstore.yaml (Swagger UI), titled with the
 * product's name. Every asset is served from the installed package, so the page works with no
 * internet access; the document is the same object the routes are validated against. The routes
 * under /docs need no token.
 */
export default fp<{ publicUrl: string | undefined }>(async (app, { publicUrl }) => {
  // Only on the document's routes, attached as they are declared: nothing on any other request's path.
  app.addHook('onRoute', (route) => {
    if (DOCUMENT_ROUTES.has(route.url)) route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), cacheableDocument]
  })
  await app.register(swagger, { mode: 'static', specification: { document: openapiDocument as never } })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: (csp) => csp.replace("style-src 'self' https:", `style-src 'self' https: ${SWAGGER_UI_STYLE}`),
    logo: { type: 'image/svg+xml', content: logo, href: '/docs', target: '_self' },
    theme: { title: 'Plant Store API' },
    uiConfig: { deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false },
    // Try-it-out requests go to the server that serves the page, not to the document's first server.
    transformSpecification: (document) => ({ ...document, servers: documentServers(publicUrl) })
  })
  // Someone who opens the server's address in a browser lands on its reference.
  app.get('/', (_request, reply) => reply.redirect('/docs', 302))
}, { name: 'docs' })
