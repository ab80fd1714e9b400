import type { FastifyInstance, FastifyRequest } from 'fastify'
import { operation } from '../contract/document.js'
import { InsufficientScope, NotFound, TokenNameConflict, TooManyRequests } from '../contract/errors.js'
import { generateToken } from '../auth/tokens.js'
import { parseDuration } from '../config/durations.js'
import { DEFAULT_SCOPES, grants, hashToken, TokenNameTaken, tokenState } from '../store/store.js'
import type { Scope, TokenRecord } from '../store/store.js'

/** Active tokens the API lets exist at once: a token that may create them cannot fill the store. */
export const MAX_ACTIVE_TOKENS = 1000

interface NewTokenBody { name: string, scopes?: Scope[], expiresIn?: string }

const iso = (date: Date | null) => date?.toISOString() ?? null

function tokenView (token: TokenRecord) {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    state: tokenState(token),
    createdAt: token.createdAt.toISOString(),
    expiresAt: iso(token.expiresAt),
    lastUsedAt: iso(token.lastUsedAt)
  }
}

/** The first of `scopes` the caller does not hold, if any: a token never hands out more than it has. */
const missingScope = (request: FastifyRequest, scopes: readonly Scope[]) => scopes.find((scope) => !grants(request.principal!.scopes, scope))

/** The later of a wanted expiry and the caller's own: an expiring token cannot mint one that outlives it. */
function expiryFor (request: FastifyRequest, expiresIn: string | undefined): Date | null {
  const wanted = expiresIn === undefined ? null : new Date(Date.now() + parseDuration(expiresIn)!)
  const own = request.principal!.expiresAt ?? null
  if (own === null) return wanted
  return wanted === null || wanted > own ? own : wanted
}

/**
 * API tokens over HTTP (scope tokens:manage, never granted by default): list, create (the token shown
 * in the answer only), revoke. What a caller creates or revokes is bounded by what it holds itself.
 */
export default async function tokenRoutes (app: FastifyInstance) {
  const { tokens } = app.store

  app.route({
    ...operation('listTokens'),
    handler: async (request, reply) => {
      const { limit, after } = request.query as { limit: number, after?: bigint }
      const from = after === undefined ? 0 : after > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(after)
      // One more than asked tells whether a next page exists.
      const list = await tokens.list({ after: from, limit: limit + 1 })
      const page = list.slice(0, limit)
      if (list.length > limit) reply.header('link', `</tokens?limit=${limit}&after=${page.at(-1)!.id}>; rel="next"`)
      return page.map(tokenView)
    }
  })

  app.route({
    ...operation('getCurrentToken'),
    handler: async (request) => {
      const { name, scopes, expiresAt } = request.principal!
      return { name, scopes, expiresAt: iso(expiresAt ?? null) }
    }
  })

  app.route({
    ...operation('createToken'),
    handler: async (request, reply) => {
      const body = request.body as NewTokenBody
      const scopes = body.scopes ?? DEFAULT_SCOPES
      const missing = missingScope(request, scopes)
      if (missing !== undefined) throw new InsufficientScope(missing)
      if (await tokens.countActive() >= MAX_ACTIVE_TOKENS) throw new TooManyRequests(60, `the store holds ${MAX_ACTIVE_TOKENS} active tokens, the most the API creates; revoke one first`)
      const token = generateToken()
      try {
        const created = await tokens.create({ name: body.name, hash: hashToken(token), scopes: [...new Set(scopes)], expiresAt: expiryFor(request, body.expiresIn) })
        return reply.code(201).header('location', `/tokens/${created.id}`).send({ ...tokenView(created), token })
      } catch (error) {
        if (error instanceof TokenNameTaken) throw new TokenNameConflict(body.name)
        throw error
      }
    }
  })

  app.route({
    ...operation('revokeToken'),
    handler: async (request, reply) => {
      const { id } = request.params as { id: bigint }
      const target = id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER) ? await tokens.find(Number(id)) : undefined
      if (target === undefined) throw new NotFound(`token ${id} not found`)
      const missing = missingScope(request, target.scopes)
      if (missing !== undefined) throw new InsufficientScope(missing)
      await tokens.revokeById(target.id)
      return reply.code(204).send()
    }
  })
}
