import { createHmac, randomBytes } from 'node:crypto'
import { SCOPES } from '../store/store.js'
import type { Scope } from '../store/store.js'
import type { Principal } from './jwt.js'
import { sameHash } from './tokens.js'

const PREFIX = 'pst_'
const SHAPE = /^pst_([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$/

/** What a ticket stands for: a principal's key, its token (if opaque), its scopes and both expiries. */
interface TicketClaims {
  /** principal key */ p: string
  /** token id */ t: number | null
  /** scopes */ s: Scope[]
  /** the ticket's own expiry (ms) */ e: number
  /** the credential's expiry (ms), null: never */ c: number | null
  /** a nonce: two tickets are never equal */ n: string
}

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest()

/**
 * A stream ticket for `principal`, valid until `expiresAt`: its claims and their HMAC under the store's
 * ticket key, so issuing one writes nothing, and every process and instance on the store can check it.
 */
export function issueTicket (key: Buffer, principal: Principal, expiresAt: Date): string {
  const claims: TicketClaims = {
    p: principal.key,
    t: principal.tokenId,
    s: principal.scopes,
    e: expiresAt.getTime(),
    c: principal.expiresAt?.getTime() ?? null,
    n: randomBytes(12).toString('base64url')
  }
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
  return `${PREFIX}${payload}.${sign(key, payload).toString('base64url')}`
}

/**
 * The principal a ticket stands for, when its signature holds and it has not expired; undefined
 * otherwise. Whether its token has been revoked since is the caller's to check (tokenId).
 */
export function readTicket (key: Buffer, ticket: string, now = Date.now()): Principal | undefined {
  const match = SHAPE.exec(ticket)
  if (match === null) return undefined
  const payload = match[1]!
  const mac = match[2]!
  if (!sameHash(sign(key, payload), Buffer.from(mac, 'base64url'))) return undefined
  let claims: TicketClaims
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TicketClaims
  } catch {
    return undefined
  }
  if (!(claims.e > now) || (claims.c !== null && !(claims.c > now))) return undefined
  const scopes = Array.isArray(claims.s) ? claims.s.filter((scope) => (SCOPES as readonly string[]).includes(scope)) : []
  return { key: claims.p, name: 'ticket', scopes, tokenId: claims.t, expiresAt: claims.c === null ? null : new Date(claims.c) }
}
