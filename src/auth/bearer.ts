import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify'
import { ApiError, InsufficientScope, InvalidToken, MalformedAuthorization, MissingCredentials, TooManyRequests } from '../contract/errors.js'
import type { Config } from '../config/config.js'
import { createJwtVerifier, looksLikeJwt } from './jwt.js'
import type { Principal } from './jwt.js'
import { grants, hashToken } from '../store/store.js'
import type { Store, TokenRecord } from '../store/store.js'
import { looksLikeToken, readCredentials, sameHash } from './tokens.js'
import { readTicket } from './tickets.js'
import { WindowCounter } from '../lib/window-counter.js'
import type { AuthFailureLimiter } from './failure-limiter.js'

export interface AuthOptions {
  /** Failed authentications per client address (shared with /metrics). */
  failures: AuthFailureLimiter
  /** Requests a token may make per minute (0: no limit). */
  rateLimit: number
  jwt: Config['jwt']
}

/** `x-plantstore-scope: any`: every valid token may call the operation. */
const ANY_SCOPE = 'any'

type JwtVerifier = ReturnType<typeof createJwtVerifier>

/** Who a stream ticket (`?ticket=`) stands for, or 401: forged, expired, or its token revoked or expired since. */
async function authenticateTicket (store: Store, ticket: string): Promise<Principal> {
  const principal = readTicket(await store.events.ticketKey(), ticket)
  if (principal === undefined) throw new InvalidToken()
  if (principal.tokenId !== null && !(await store.tokens.activeIds([principal.tokenId])).has(principal.tokenId)) throw new InvalidToken()
  return principal
}

/** How many Authorization headers a request has (Node keeps only the first in `headers`). */
function authorizationCount (request: FastifyRequest): number {
  const raw = request.raw.rawHeaders
  let count = 0
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') count++
  return count
}

const unexpired = (token: TokenRecord) => token.expiresAt === null || token.expiresAt.getTime() > Date.now()

/** Who a request's Authorization header proves it is, or the 400/401 error it deserves (or 503 from the store). */
async function authenticate (store: Store, verifyJwt: JwtVerifier | undefined, request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization
  if (header !== undefined && authorizationCount(request) > 1) throw new MalformedAuthorization('more than one Authorization header')
  const credentials = readCredentials(header)
  const ticket = (request.query as { ticket?: unknown } | undefined)?.ticket
  if (credentials.kind === 'none' && typeof ticket === 'string' && request.routeOptions.config.acceptsTicket === true) {
    return authenticateTicket(store, ticket)
  }
  const tokens = store.tokens
  if (credentials.kind === 'none') throw new MissingCredentials()
  if (credentials.kind === 'malformed') throw new MalformedAuthorization(credentials.reason)
  if (verifyJwt !== undefined && looksLikeJwt(credentials.token)) {
    try {
      return await verifyJwt(credentials.token)
    } catch (error) {
      request.log.info({ reason: (error as Error).message }, 'JWT refused')
      throw new InvalidToken()
    }
  }
  if (!looksLikeToken(credentials.token)) throw new InvalidToken()
  const token = await tokens.findByToken(credentials.token)
  const usable = token !== undefined && token.revokedAt === null && unexpired(token)
  if (!usable) throw new InvalidToken()
  tokens.recordUse(token.id)
  return { key: `token:${token.id}`, name: token.name, scopes: token.scopes, tokenId: token.id, expiresAt: token.expiresAt }
}

/** Only a caller's own mistakes count toward the failure limit: never the store being unreachable (503). */
const isFailedAuthentication = (error: unknown) => error instanceof MissingCredentials || error instanceof InvalidToken ||
  error instanceof MalformedAuthorization

/**
 * A hook admitting only the bearer token whose hash is `expected` (the `/metrics` route's own token,
 * `--metrics token`), compared in constant time; wrong guesses count toward the failure limit.
 */
export function requireOwnToken (expected: Buffer, failures: AuthFailureLimiter): onRequestHookHandler {
  return async function requireOwn (request: FastifyRequest) {
    const credentials = readCredentials(authorizationCount(request) > 1 ? [] : request.headers.authorization)
    if (credentials.kind !== 'bearer') return failures.fail(request.ip, new MissingCredentials())
    if (!sameHash(hashToken(credentials.token), expected)) return failures.fail(request.ip, new InvalidToken())
  }
}

/**
 * Bearer authentication (RFC 6750) for every route whose config names a scope: our opaque tokens, and
 * JWTs from an OpenID Connect issuer when one is configured (see jwt.ts). The check is attached to
 * those routes when they are declared (an onRoute hook), so nothing is looked up per request to know
 * whether a route needs it. It runs on onRequest, before the body is read, so an unauthenticated
 * caller cannot make the server parse anything. The store caches token lookups and drops them within
 * a second of any change, from any process (see the stores' token files).
 * Guessing is slowed per client address: past the failure limit, missing or invalid credentials get
 * 429, while a request with a valid token is never held back by it (neighbours behind one NAT).
 */
export default fp<AuthOptions>(async (app, { failures, rateLimit, jwt }) => {
  const perToken = new WindowCounter()
  const verifyJwt = jwt === undefined ? undefined : createJwtVerifier(jwt)
  app.decorateRequest('principal', null)

  const guard = (scope: string): onRequestHookHandler => async function requireScope (request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-store')
    let principal: Principal
    try {
      principal = await authenticate(app.store, verifyJwt, request)
    } catch (error) {
      if (!(error instanceof ApiError) || !isFailedAuthentication(error)) throw error
      return failures.fail(request.ip, error)
    }
    if (rateLimit > 0 && perToken.hit(principal.key) > rateLimit) {
      throw new TooManyRequests(perToken.retryAfterSeconds(principal.key), 'this token made too many requests')
    }
    if (scope !== ANY_SCOPE && !grants(principal.scopes, scope)) throw new InsufficientScope(scope)
    request.principal = principal
  }

  // A batch counts as its operations: as one request, a token held to N a minute could write 1,000 N.
  const charge = (requestsWorth: (body: unknown) => number): preHandlerHookHandler => async function chargeRequests (request) {
    if (rateLimit === 0 || request.principal === null) return
    const more = requestsWorth(request.body) - 1
    if (more <= 0) return
    const { key } = request.principal
    if (perToken.hit(key, Date.now(), more) > rateLimit) throw new TooManyRequests(perToken.retryAfterSeconds(key), 'this token made too many requests')
  }

  app.addHook('onRoute', (route) => {
    const { scope, requestsWorth } = route.config ?? {}
    if (scope === undefined) return
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat()
    route.onRequest = [...existing, guard(scope)]
    if (requestsWorth !== undefined) route.preHandler = [charge(requestsWorth), ...(route.preHandler === undefined ? [] : [route.preHandler].flat())]
  })
}, { name: 'auth', dependencies: ['store', 'error-handler'] })
