import { hash } from 'node:crypto'

export const SCOPES = ['plants:read', 'plants:write', 'webhooks:manage', 'webhooks:admin', 'tokens:manage'] as const
export type Scope = typeof SCOPES[number]

/** Whether `scopes` grant `scope`: `webhooks:admin` (every owner's subscriptions) includes `webhooks:manage`. */
export function grants (scopes: readonly Scope[], scope: string): boolean {
  return (scopes as readonly string[]).includes(scope) || (scope === 'webhooks:manage' && scopes.includes('webhooks:admin'))
}
/** What a token gets unless asked otherwise: managing webhooks or tokens is granted only on request. */
export const DEFAULT_SCOPES: readonly Scope[] = ['plants:read', 'plants:write']

export interface TokenRecord {
  id: number
  name: string
  scopes: Scope[]
  createdAt: Date
  expiresAt: Date | null
  revokedAt: Date | null
  /** To within a minute (token-usage.ts); null if never used. */
  lastUsedAt: Date | null
}

/** A token's state as listed: revoked, expired or active. */
export function tokenState (token: TokenRecord, now = Date.now()): 'active' | 'expired' | 'revoked' {
  if (token.revokedAt !== null) return 'revoked'
  if (token.expiresAt !== null && token.expiresAt.getTime() <= now) return 'expired'
  return 'active'
}

export interface NewToken {
  name: string
  hash: Buffer
  scopes: Scope[]
  expiresAt: Date | null
}

/** A keyset page of tokens: those after the id `after`, at most `limit`. */
export interface TokenPage { after?: number, limit?: number }

/** Why a subscription was disabled when its owner's token was revoked (its health's lastError). */
export const OWNER_REVOKED = 'disabled: the token that owns this subscription was revoked'

/**
 * The SHA-256 of a token, as stored. One-shot hash(): a Hash object per call cost twice as much.
 */
export function hashToken (token: string): Buffer {
  return hash('sha256', token, 'buffer')
}

/** API tokens: only their SHA-256 hashes are stored. */
export interface TokenStore {
  /**
   * The token a bearer presents, through the cache (token-cache.ts), which keeps it under the token
   * itself: only a lookup the cache cannot answer hashes it and reads the store.
   */
  findByToken (token: string): Promise<TokenRecord | undefined>
  /** Fails with TokenNameTaken when the name is in use. */
  create (token: NewToken): Promise<TokenRecord>
  /** Creates the token only when the store has none at all; answers whether it did. */
  createFirst (token: NewToken): Promise<boolean>
  /** One token by id, without its hash. */
  find (id: number): Promise<TokenRecord | undefined>
  /** How many tokens are neither revoked nor expired. */
  countActive (): Promise<number>
  /** Tokens in id order (all of them unless paged), with this process's uses written down first. */
  list (page?: TokenPage): Promise<TokenRecord[]>
  /**
   * Revokes the token with exactly this name and, in the same transaction, disables the subscriptions
   * it owns (OWNER_REVOKED); answers the token, or undefined when none has the name.
   */
  revokeByName (name: string): Promise<TokenRecord | undefined>
  /** As revokeByName, by id. */
  revokeById (id: number): Promise<TokenRecord | undefined>
  /** Of `ids`, those whose tokens are neither revoked nor expired now (a stream's credential check). */
  activeIds (ids: readonly number[]): Promise<Set<number>>
  /** Deletes up to `max` tokens revoked or expired before `before` (Unix ms); answers how many went. */
  purgeEnded (before: number, max: number): Promise<number>
  /** Notes that a request authenticated with it; written to the store within a minute (TokenUsage). */
  recordUse (id: number): void
  /** Writes the uses noted so far, and stops noting. */
  close (): Promise<void>
}

/** What a cached token costs in memory, about: its strings (the key is the token) and the entry's own objects. */
export function tokenEntryBytes (token: TokenRecord, key: string): number {
  return 300 + 2 * (key.length + token.name.length + token.scopes.join(',').length)
}
