import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { ApiError, InsufficientScope, InvalidToken, MalformedAuthorization, MissingCredentials, TooManyRequests } from '../errors.js'
import type { TokenRecord } from '../store/store.js'
import type { Store } from '../store/store.js'
import { hashToken, looksLikeToken, readCredentials, sameHash } from '../tokens.js'
import { WindowCounter } from '../window-counter.js'

export interface AuthOptions {
  /** Failed authentications a client address may make per minute before it gets 429 instead of 401 (0: no limit). */
  authFailureLimit: number
  /** Requests a token may make per minute (0: no limit). */
  rateLimit: number
}

/** The token a request's Authorization header proves, or the 400/401 error it deserves. */
async function authenticate (store: Store, request: FastifyRequest): Promise<TokenRecord> {
  const credentials = readCredentials(request.headers.authorization)
  if (credentials.kind === 'none') throw new MissingCredentials()
  if (credentials.kind === 'malformed') throw new MalformedAuthorization(credentials.reason)
  if (!looksLikeToken(credentials.token)) throw new InvalidToken()
  const hash = hashToken(credentials.token)
  const token = await store.findTokenByHash(hash)
  const usable = token !== undefined && sameHash(token.hash, hash) && token.revokedAt === null &&
    (token.expiresAt === null || token.expiresAt.getTime() > Date.now())
  if (!usable) throw new InvalidToken()
  return token
}

/**
 * Bearer authentication (RFC 6750) for every route whose config names a scope. It runs on onRequest,
 * before the body is read, so an unauthenticated caller cannot make the server parse anything.
 * Tokens are looked up by their SHA-256 on every request, so a revocation holds at once.
 * Guessing is slowed per client address: past the failure limit, missing or invalid credentials get
 * 429, while a request with a valid token is never held back by it (neighbours behind one NAT).
 */
export default fp<AuthOptions>(async (app, { authFailureLimit, rateLimit }) => {
  const failures = new WindowCounter()
  const perToken = new WindowCounter()

  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.scope
    if (scope === undefined) return
    let token: TokenRecord
    try {
      token = await authenticate(app.store, request)
    } catch (error) {
      if (!(error instanceof ApiError) || authFailureLimit === 0) throw error
      if (failures.count(request.ip) >= authFailureLimit) {
        throw new TooManyRequests(failures.retryAfterSeconds(request.ip), 'too many failed authentications from this address')
      }
      failures.hit(request.ip)
      throw error
    }
    if (rateLimit > 0 && perToken.hit(String(token.id)) > rateLimit) {
      throw new TooManyRequests(perToken.retryAfterSeconds(String(token.id)), 'this token made too many requests')
    }
    if (!(token.scopes as string[]).includes(scope)) throw new InsufficientScope(scope)
    request.token = token
  })
}, { name: 'auth', dependencies: ['store', 'error-handler'] })
