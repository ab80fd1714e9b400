import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../contract/errors.js'

// Built by `npm run build` (scripts/build-console.mjs) from console/; two levels above both
// src/routes and dist/routes.
const BUILT = new URL('../../dist/console/', import.meta.url)

const FILES = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'logo.svg': 'image/svg+xml'
} as const
type ConsoleFile = keyof typeof FILES

/**
 * Only the console's own files may load, and it may talk to this server only: no inline script or
 * style, no other origin, no framing, and no native form submission (a form that somehow submitted
 * could put a token in a URL).
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

interface Asset { body: Buffer, type: string, etag: string }

function loadAssets (): Map<string, Asset> | undefined {
  if (!existsSync(new URL('index.html', BUILT))) return undefined
  return new Map(Object.entries(FILES).map(([name, type]) => {
    const body = readFileSync(new URL(name, BUILT))
    return [name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }]
  }))
}

/**
 * `GET /console`: the operator console, a single-page app served from the files the package ships.
 * It needs no token to load; it signs in with one, kept in the tab's sessionStorage.
 */
export default async function consoleRoutes (app: FastifyInstance) {
  const assets = loadAssets()

  const serve = (name: ConsoleFile) => async (request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets?.get(name)
    if (asset === undefined) throw new ApiError(503, 5001, 'the console is not built: run npm run build', { 'retry-after': '60' })
    reply.header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .header('etag', asset.etag)
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
    return reply.type(asset.type).send(asset.body)
  }

  app.get('/console', serve('index.html'))
  // The console's relative paths are under /console/, so its address is exactly /console.
  app.get('/console/', (_request, reply) => reply.redirect('/console', 301))
  for (const name of Object.keys(FILES) as ConsoleFile[]) app.get(`/console/${name}`, serve(name))
}
