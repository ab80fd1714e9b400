import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new signing secret in Standard Webhooks' form: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret (): string {
  return PREFIX + randomBytes(32).toString('base64')
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's decoded bytes, of `${messageId}.${timestampSeconds}.${body}`.
 */
export function sign (secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`
}
