import { createHmac, createSecretKey, randomBytes } from 'node:crypto'
import type { KeyObject } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new signing secret in Standard Webhooks' form: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret (): string {
  return PREFIX + randomBytes(32).toString('base64')
}

function keyOf (secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64'))
}

/**
 * Signs deliveries as Standard Webhooks specifies: `webhook-signature` is `v1,` and the base64
 * HMAC-SHA256, keyed with a secret's decoded bytes, of `${messageId}.${timestampSeconds}.${body}`; with
 * several secrets (a rotation's grace period), one such entry per secret, space-separated. The keys
 * are made once: keying an HMAC from raw bytes costs several times the HMAC itself.
 */
export class Signer {
  readonly #keys: KeyObject[]

  constructor (secrets: string[]) {
    this.#keys = secrets.map(keyOf)
  }

  sign (messageId: string, timestampSeconds: number, body: string): string {
    const content = `${messageId}.${timestampSeconds}.${body}`
    return this.#keys.map((key) => `v1,${createHmac('sha256', key).update(content).digest('base64')}`).join(' ')
  }
}
