import type { TestContext } from 'node:test'
import { buildApp } from '../src/app.js'
import type { BuildOptions } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import type { RawConfig } from '../src/config.js'
import { SCOPES } from '../src/store/store.js'
import type { Scope } from '../src/store/store.js'
import { generateToken, hashToken } from '../src/tokens.js'

export type App = Awaited<ReturnType<typeof buildApp>>

/** The databases every store and route test runs on: SQLite always. */
export const DATABASES: Record<string, string> = { sqlite: 'sqlite::memory:' }

/** The real app on a real (in-memory) SQLite database, closed when the test ends. */
export async function build (t: TestContext, raw: RawConfig = {}, options: BuildOptions = {}): Promise<App> {
  const app = await buildApp(loadConfig({ database: 'sqlite::memory:', logLevel: 'silent', ...raw }), options)
  t.after(() => app.close())
  return app
}

let tokenCount = 0

/** Creates a token in the app's store and answers the bearer value. */
export async function createToken (app: App, options: { scopes?: Scope[], expiresAt?: Date | null, name?: string } = {}) {
  const token = generateToken()
  await app.store.createToken({
    name: options.name ?? `test-${++tokenCount}`,
    hash: hashToken(token),
    scopes: options.scopes ?? [...SCOPES],
    expiresAt: options.expiresAt ?? null
  })
  return token
}

/** An app with one all-scopes token, and a helper that sends an authenticated JSON request. */
export async function buildWithToken (t: TestContext, raw: RawConfig = {}) {
  const app = await build(t, raw)
  const token = await createToken(app)
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
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
