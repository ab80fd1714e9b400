import { createRemoteJWKSet, jwtVerify } from 'jose'
import type { JWTPayload } from 'jose'
import type { Config } from '../config/config.js'
import { SCOPES } from '../store/store.js'
import type { Scope } from '../store/store.js'

/** Who a request acts as: an opaque token of ours, or the subject of a verified JWT. */
export interface Principal {
  /** Stable key for per-principal limits: `token:<id>` or `jwt:<iss>|<sub>`. */
  key: string
  name: string
  scopes: Scope[]
  /** The opaque token behind it (directly or through a ticket); null for a JWT. Streams end when it is revoked. */
  tokenId: number | null
  /**
   * When the credential stops being valid (an opaque token's expiry, a JWT's `exp`); null: never. What
   * it creates expires no later (routes/tokens.ts), and its streams and tickets end then.
   */
  expiresAt: Date | null
}

// Asymmetric algorithms only: never `none`, and never HMAC, whose "secret" would be the public key.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']
const CLOCK_SKEW_SECONDS = 30

/** A JWS in compact form: three base64url parts. Our opaque tokens have no dots, so they never match. */
export function looksLikeJwt (token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)
}

/** Scopes from the `scope` claim (space-separated) or `scp` (array or string), limited to ours. */
function scopesOf (payload: JWTPayload): Scope[] {
  const claimed = typeof payload.scope === 'string'
    ? payload.scope.split(' ')
    : Array.isArray(payload.scp) ? payload.scp : typeof payload.scp === 'string' ? payload.scp.split(' ') : []
  return SCOPES.filter((scope) => claimed.includes(scope))
}

async function discoverJwksUrl (issuer: string): Promise<URL> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })
  if (!response.ok) throw new Error(`OpenID discovery answered ${response.status}`)
  const { jwks_uri: jwksUri } = await response.json() as { jwks_uri?: unknown }
  if (typeof jwksUri !== 'string') throw new Error('the OpenID discovery document has no jwks_uri')
  return new URL(jwksUri)
}

/**
 * Verifies JWT bearer tokens with the issuer's JWKS (fetched lazily, cached, and fetched again for an
 * unknown `kid`, so a key rotation needs no restart): signature, `iss`, `aud` when configured, `exp`
 * and `nbf` with 30 s of clock skew. Throws on any failure; the caller answers 401 (code 2001).
 */
export function createJwtVerifier (settings: NonNullable<Config['jwt']>) {
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined
  let discovering: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined
  const keySet = () => {
    if (keys !== undefined) return Promise.resolve(keys)
    discovering ??= (settings.jwksUrl !== undefined ? Promise.resolve(new URL(settings.jwksUrl)) : discoverJwksUrl(settings.issuer))
      .then((url) => (keys = createRemoteJWKSet(url, { cooldownDuration: 2000, timeoutDuration: 5000 })))
      .finally(() => { discovering = undefined })
    return discovering
  }
  return async (token: string): Promise<Principal> => {
    const { payload } = await jwtVerify(token, await keySet(), {
      issuer: settings.issuer,
      ...(settings.audience !== undefined && { audience: settings.audience }),
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      // Without a subject, every such JWT would share one owner, and so each other's subscriptions.
      requiredClaims: ['exp', 'sub']
    })
    const subject = payload.sub
    if (typeof subject !== 'string' || subject === '') throw new Error('the JWT has no sub claim')
    return { key: `jwt:${payload.iss}|${subject}`, name: subject, scopes: scopesOf(payload), tokenId: null, expiresAt: new Date(payload.exp! * 1000) }
  }
}
