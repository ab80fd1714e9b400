import fp from 'fastify-plugin'
import { InsufficientScope, InvalidToken, MalformedAuthorization, MissingCredentials } from '../errors.js'
import { hashToken, looksLikeToken, readCredentials, sameHash } from '../tokens.js'

/**
 * Bearer authentication (RFC 6750) for every route whose config names a scope. It runs on onRequest,
 * before the body is read, so an unauthenticated caller cannot make the server parse anything.
 * Tokens are looked up by their SHA-256 on every request, so a revocation holds at once.
 */
export default fp(async (app) => {
  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.scope
    if (scope === undefined) return
    const credentials = readCredentials(request.headers.authorization)
    if (credentials.kind === 'none') throw new MissingCredentials()
    if (credentials.kind === 'malformed') throw new MalformedAuthorization(credentials.reason)
    if (!looksLikeToken(credentials.token)) throw new InvalidToken()
    const hash = hashToken(credentials.token)
    const token = await app.store.findTokenByHash(hash)
    const usable = token !== undefined && sameHash(token.hash, hash) && token.revokedAt === null &&
      (token.expiresAt === null || token.expiresAt.getTime() > Date.now())
    if (!usable) throw new InvalidToken()
    if (!(token.scopes as string[]).includes(scope)) throw new InsufficientScope(scope)
    request.token = token
  })
}, { name: 'auth', dependencies: ['store', 'error-handler'] })
