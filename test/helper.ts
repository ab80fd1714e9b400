import type { TestContext } from 'node:test'
import { buildApp } from '../src/http/app.js'
import type { BuildOptions } from '../src/http/app.js'
import { loadConfig } from '../src/config/config.js'
import type { RawConfig } from '../src/config/config.js'
import { freshDatabase } from './databases.js'
import { hashToken, SCOPES } from '../src/store/store.js'
import type { Scope } from '../src/store/store.js'
import { generateToken } from '../src/auth/tokens.js'

export type App = Awaited<ReturnType<typeof buildApp>>

export { DATABASES, freshDatabase } from './databases.js'

/** The real app on a real database (in-memory SQLite unless `raw.database` names another), closed when the test ends. */
export async function build (t: TestContext, raw: RawConfig = {}, options: BuildOptions = {}): Promise<App> {
  const database = await freshDatabase(raw.database ?? 'sqlite::memory:')
  // Load shedding is off unless a test asks for it: a test process's own pauses must not turn into 503s.
  const app = await buildApp(loadConfig({ logLevel: 'silent', maxEventLoopDelay: '0', ...raw, database }), options)
  t.after(() => app.close())
  return app
}

let tokenCount = 0

/** Creates a token in the app's store and answers the bearer value. */
export async function createToken (app: App, options: { scopes?: Scope[], expiresAt?: Date | null, name?: string } = {}) {
  const token = generateToken()
  await app.store.tokens.create({
    name: options.name ?? `test-${++tokenCount}`,
    hash: hashToken(token),
    scopes: options.scopes ?? SCOPES.filter((scope) => scope !== 'webhooks:admin'),
    expiresAt: options.expiresAt ?? null
  })
  return token
}

/** An app with one all-scopes token, and a helper that sends an authenticated JSON request. */
export async function buildWithToken (t: TestContext, raw: RawConfig = {}) {
  const app = await build(t, raw)
  const token = await createToken(app)
  const send = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload !== undefined && { 'content-type': 'application/json' }),
        ...headers
      },
      ...(payload !== undefined && { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })
    })
  return { app, token, send }
}
