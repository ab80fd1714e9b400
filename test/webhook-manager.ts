import { Writable } from 'node:stream'
import { Webhook } from 'standardwebhooks'
import { build, createToken } from './helper.js'
import type { Received } from './receiver.js'

/** Verifies a delivery with the Standard Webhooks reference library (throws when it does not verify). */
export const verify = (secret: string, request: Received) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)

/** An app whose integrators may target loopback receivers (as tests must), a manager's token, and a sender. */
export async function setup (t: Parameters<typeof build>[0], database: string, raw: Record<string, string> = {}) {
  let log = ''
  const logStream = new Writable({ write (chunk, _encoding, done) { log += String(chunk); done() } })
  const app = await build(t, { database, webhookAllowPrivate: 'true', webhookRetryBase: '50ms', logLevel: 'trace', ...raw }, { logStream })
  const manager = await createToken(app, { scopes: ['webhooks:manage', 'plants:write'] })
  const send = (method: string, url: string, payload?: unknown, token = manager) => app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })
  })
  return { app, send, manager, log: () => log }
}
