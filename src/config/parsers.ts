import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { parseDuration } from './durations.js'
import { ConfigError } from './settings.js'
import type { RawConfig } from './settings.js'

/** SQLite's synchronous pragma, as --sqlite-synchronous sets it. */
export type SqliteSynchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA'

export type MetricsSettings = { readonly mode: 'off' | 'open' | 'token', readonly token: string | undefined }
export type JwtSettings = { readonly issuer: string, readonly audience: string | undefined, readonly jwksUrl: string | undefined } | undefined
export type CorsSettings = { readonly origins: '*' | readonly string[] } | undefined
export type TrustProxySettings = false | number | readonly string[]

// Each setting's value checked and turned into what Config holds; a bad one is a ConfigError naming it.

export type DatabaseUrl =
  | { kind: 'sqlite', path: string, synchronous: SqliteSynchronous }
  | { kind: 'postgres', url: string, poolSize: number }

export function integer (setting: keyof RawConfig, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= min && n <= max)) throw new ConfigError(setting, value, `expected an integer from ${min} to ${max}`)
  return n
}

export function boolean (setting: keyof RawConfig, value: string): boolean {
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0' || value === '') return false
  throw new ConfigError(setting, value, 'expected true or false')
}

export function duration (setting: keyof RawConfig, value: string, { zero = false } = {}): number {
  if (zero && value === '0') return 0
  const ms = /^\d+ms$/.test(value) ? Number(value.slice(0, -2)) : parseDuration(value)
  if (ms === undefined || ms <= 0) {
    throw new ConfigError(setting, value, `expected a duration such as 500ms, 10s, 5m, 2h or 3d${zero ? ', or 0 for none' : ''}`)
  }
  return ms
}

export function metricsSettings (mode: string, token: string): MetricsSettings {
  if (mode !== 'off' && mode !== 'open' && mode !== 'token') throw new ConfigError('metrics', mode, 'expected off, open or token')
  if (mode === 'token' && token.length < 16) throw new ConfigError('metricsToken', token, 'expected a token of at least 16 characters with --metrics token')
  return { mode, token: mode === 'token' ? token : undefined }
}

export function httpUrl (setting: keyof RawConfig, value: string): string {
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href
  } catch {}
  throw new ConfigError(setting, value, 'expected an http:// or https:// URL')
}

export function jwtSettings (issuer: string, audience: string, jwksUrl: string): JwtSettings {
  if (issuer === '') {
    if (audience !== '' || jwksUrl !== '') throw new ConfigError('jwtIssuer', issuer, 'expected an issuer URL when an audience or JWKS URL is set')
    return undefined
  }
  httpUrl('jwtIssuer', issuer)
  return Object.freeze({
    // The issuer is compared with `iss` exactly as configured, so it is kept as given, not normalised.
    issuer,
    audience: audience === '' ? undefined : audience,
    jwksUrl: jwksUrl === '' ? undefined : httpUrl('jwtJwksUrl', jwksUrl)
  })
}

export function corsSettings (value: string): CorsSettings {
  if (value.trim() === '') return undefined
  if (value.trim() === '*') return Object.freeze({ origins: '*' as const })
  const origins = value.split(',').map((part) => part.trim()).filter((part) => part !== '')
  for (const origin of origins) {
    let url: URL | undefined
    try { url = new URL(origin) } catch {}
    if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin) {
      throw new ConfigError('corsOrigins', value, `expected * or origins such as https://app.example.com (scheme, host and port only), not ${JSON.stringify(origin)}`)
    }
  }
  return Object.freeze({ origins: Object.freeze(origins) })
}

export function trustProxySettings (value: string): TrustProxySettings {
  if (value.trim() === '') return false
  if (/^\d+$/.test(value.trim())) return integer('trustProxy', value.trim(), 1, 100)
  const proxies = value.split(',').map((part) => part.trim()).filter((part) => part !== '')
  for (const proxy of proxies) {
    const [address, bits, extra] = proxy.split('/')
    const version = isIP(address ?? '')
    const maxBits = version === 4 ? 32 : 128
    if (version === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError('trustProxy', value, `expected proxy addresses or CIDRs (10.0.0.1, 10.0.0.0/8, ::1), comma-separated, or a hop count, not ${JSON.stringify(proxy)}`)
    }
  }
  return Object.freeze(proxies)
}

export function parseDatabaseUrl (value: string, { synchronous = 'FULL', poolSize = 10, passwordFile = '' }: {
  synchronous?: SqliteSynchronous, poolSize?: number, passwordFile?: string
} = {}): DatabaseUrl {
  if (passwordFile !== '') return { kind: 'postgres', url: withPasswordFrom(passwordFile, value), poolSize }
  if (value === 'sqlite::memory:') return { kind: 'sqlite', path: ':memory:', synchronous }
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length) {
    return { kind: 'sqlite', path: value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''), synchronous }
  }
  if (isPostgresUrl(value)) return { kind: 'postgres', url: value, poolSize }
  throw new ConfigError('database', value, 'expected sqlite:PATH, sqlite::memory: or postgres://…')
}

const isPostgresUrl = (value: string) => /^postgres(ql)?:\/\//.test(value)

/**
 * The PostgreSQL URL with the password a file holds (one line; a trailing newline is not part of it), the
 * way containers hand out secrets. Read once, at start.
 */
function withPasswordFrom (file: string, value: string): string {
  if (!isPostgresUrl(value)) throw new ConfigError('databasePasswordFile', file, 'only a postgres:// database takes a password file')
  const url = new URL(value)
  if (url.password !== '') throw new ConfigError('databasePasswordFile', file, 'the database URL has a password already: give it one way, not both')
  let password: string
  try {
    password = readFileSync(file, 'utf8').replace(/\r?\n$/, '')
  } catch (error) {
    throw new ConfigError('databasePasswordFile', file, `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  if (password === '') throw new ConfigError('databasePasswordFile', file, 'the file is empty')
  url.password = encodeURIComponent(password)
  return url.href
}
