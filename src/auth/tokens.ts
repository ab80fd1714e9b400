import { randomBytes, timingSafeEqual } from 'node:crypto'

const PREFIX = 'ps_'
// ps_ + base64url of 32 bytes (43 characters): anything else cannot be one of ours.
const TOKEN_SHAPE = /^ps_[A-Za-z0-9_-]{43}$/

/** A new opaque token: 256 random bits. Shown once; only its hash is stored. */
export function generateToken (): string {
  return PREFIX + randomBytes(32).toString('base64url')
}

export function looksLikeToken (token: string): boolean {
  return TOKEN_SHAPE.test(token)
}

/** Constant-time equality of two token hashes. */
export function sameHash (a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

export type Credentials =
  | { kind: 'none' }
  | { kind: 'malformed', reason: string }
  | { kind: 'bearer', token: string }

// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/** Reads an Authorization header: no bearer credentials, a malformed bearer header, or the token. */
export function readCredentials (header: string | string[] | undefined): Credentials {
  if (Array.isArray(header)) return { kind: 'malformed', reason: 'more than one Authorization header' }
  if (header === undefined || header.trim() === '') return { kind: 'none' }
  const space = header.indexOf(' ')
  const scheme = space === -1 ? header : header.slice(0, space)
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'none' }
  const token = space === -1 ? '' : header.slice(space + 1).trim()
  if (token === '') return { kind: 'malformed', reason: 'the Bearer scheme needs a token' }
  if (!B64TOKEN.test(token)) return { kind: 'malformed', reason: 'the token has characters a bearer token cannot have' }
  return { kind: 'bearer', token }
}
