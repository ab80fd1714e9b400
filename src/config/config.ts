import type { SqliteSynchronous } from '../store/sqlite/index.js'
import { isIP } from 'node:net'
import { parseDuration } from '../auth/tokens.js'

export type DatabaseUrl =
  | { kind: 'sqlite', path: string, synchronous: SqliteSynchronous }
  | { kind: 'postgres', url: string, poolSize: number }

export interface Config {
  readonly host: string
  readonly port: number
  readonly database: DatabaseUrl
  readonly logLevel: LogLevel
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number
  /** Bytes the list-page cache may hold, and each process's token cache. */
  readonly caches: { readonly readBytes: number, readonly tokenBytes: number }
  /** Open client connections the server accepts at once; past it new ones are closed at once. */
  readonly maxConnections: number
  /** The server's public URL, for the document's `servers`; undefined: a relative URL. */
  readonly publicUrl: string | undefined
  /** Where the first-start token goes when stderr is not a terminal; undefined: beside the SQLite store. */
  readonly firstTokenFile: string | undefined
  /** Processes `serve` runs (node:cluster); 1 serves from this process. */
  readonly workers: number
  /** `/metrics`: off, open to anyone who reaches the port, or behind `metricsToken`. */
  readonly metrics: { readonly mode: 'off' | 'open' | 'token', readonly token: string | undefined }
  /** JWT bearer tokens from an OpenID Connect issuer, beside the opaque ones; undefined when not set. */
  readonly jwt: { readonly issuer: string, readonly audience: string | undefined, readonly jwksUrl: string | undefined } | undefined
  readonly limits: {
    /** Failed authentications per client address per minute before 429 (0: no limit). */
    readonly authFailures: number
    /** Requests per token per minute (0: no limit). */
    readonly perToken: number
    readonly requestTimeoutMs: number
    readonly headersTimeoutMs: number
    readonly keepAliveTimeoutMs: number
    /** Event-loop delay past which requests are shed with 503 (0: never). */
    readonly maxEventLoopDelayMs: number
  }
  /** CORS: off (undefined), or the origins allowed (`*`: any). */
  readonly cors: { readonly origins: '*' | readonly string[] } | undefined
  /** Fastify's trustProxy: the proxies whose X-Forwarded-For names the client (false: none). */
  readonly trustProxy: false | number | readonly string[]
  readonly webhooks: {
    readonly timeoutMs: number
    readonly perSubscription: number
    readonly retryBaseMs: number
    readonly giveUpAfterMs: number
    readonly pollMs: number
    /** Subscriptions made over HTTP may target loopback, private and link-local addresses. */
    readonly allowPrivate: boolean
    /** Subscriptions one owner may hold. */
    readonly maxPerOwner: number
    /** Outbound delivery connections of the process, all subscribers together. */
    readonly maxConnections: number
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
type LogLevel = typeof LOG_LEVELS[number]

/** Every setting as text, as flags and PLANTSTORE_* variables give it. */
export interface RawConfig {
  host?: string
  port?: string
  database?: string
  logLevel?: string
  bodyLimit?: string
  sqliteSynchronous?: string
  webhookTimeout?: string
  webhookConcurrency?: string
  webhookRetryBase?: string
  webhookGiveUpAfter?: string
  databasePoolSize?: string
  workers?: string
  authFailureLimit?: string
  rateLimit?: string
  requestTimeout?: string
  headersTimeout?: string
  keepAliveTimeout?: string
  maxEventLoopDelay?: string
  metrics?: string
  metricsToken?: string
  jwtIssuer?: string
  jwtAudience?: string
  jwtJwksUrl?: string
  corsOrigins?: string
  trustProxy?: string
  webhookAllowPrivate?: string
  webhookMaxPerOwner?: string
  webhookMaxConnections?: string
  readCacheSize?: string
  tokenCacheSize?: string
  maxConnections?: string
  publicUrl?: string
  firstTokenFile?: string
}

/** Each setting's flag, environment twin, default, argument name and help line: the table `serve --help` shows. */
export const SETTINGS = {
  host: ['--host', 'PLANTSTORE_HOST', '127.0.0.1', 'host', 'address to listen on'],
  port: ['--port', 'PLANTSTORE_PORT', '8080', 'port', 'port to listen on (0: any free port)'],
  database: ['--database', 'PLANTSTORE_DATABASE_URL', 'sqlite:./data/plantstore.db', 'url', 'sqlite:PATH, sqlite::memory: or postgres://…'],
  databasePoolSize: ['--database-pool-size', 'PLANTSTORE_DATABASE_POOL_SIZE', '10', 'n', 'PostgreSQL connections per process'],
  logLevel: ['--log-level', 'PLANTSTORE_LOG_LEVEL', 'info', 'level', 'fatal, error, warn, info, debug, trace or silent'],
  bodyLimit: ['--body-limit', 'PLANTSTORE_BODY_LIMIT', '65536', 'bytes', 'largest request body'],
  sqliteSynchronous: ['--sqlite-synchronous', 'PLANTSTORE_SQLITE_SYNCHRONOUS', 'FULL', 'mode', 'SQLite synchronous pragma: FULL, EXTRA, NORMAL or OFF'],
  readCacheSize: ['--read-cache-size', 'PLANTSTORE_READ_CACHE_SIZE', '8388608', 'bytes', 'memory for cached list pages (0: none)'],
  tokenCacheSize: ['--token-cache-size', 'PLANTSTORE_TOKEN_CACHE_SIZE', '1048576', 'bytes', 'memory for cached token lookups'],
  maxConnections: ['--max-connections', 'PLANTSTORE_MAX_CONNECTIONS', '1000', 'n', 'client connections open at once; more are closed as they arrive'],
  publicUrl: ['--public-url', 'PLANTSTORE_PUBLIC_URL', '', 'url', 'the URL clients reach the service at, for the served document (default: a relative URL)'],
  firstTokenFile: ['--first-token-file', 'PLANTSTORE_FIRST_TOKEN_FILE', '', 'path', 'where the first-start token is written when stderr is not a terminal (default: first-token beside the SQLite store, or in the working folder)'],
  workers: ['--workers', 'PLANTSTORE_WORKERS', '1', 'n', 'processes sharing the port (node:cluster)'],
  authFailureLimit: ['--auth-failure-limit', 'PLANTSTORE_AUTH_FAILURE_LIMIT', '100', 'n', 'failed authentications per client address per minute before 429 (0: no limit)'],
  rateLimit: ['--rate-limit', 'PLANTSTORE_RATE_LIMIT', '0', 'n', 'requests per token per minute (0: no limit)'],
  requestTimeout: ['--request-timeout', 'PLANTSTORE_REQUEST_TIMEOUT', '30s', 'duration', 'time for a whole request to arrive'],
  headersTimeout: ['--headers-timeout', 'PLANTSTORE_HEADERS_TIMEOUT', '10s', 'duration', 'time for request headers to arrive'],
  keepAliveTimeout: ['--keep-alive-timeout', 'PLANTSTORE_KEEP_ALIVE_TIMEOUT', '5s', 'duration', 'idle time before a keep-alive connection closes'],
  maxEventLoopDelay: ['--max-event-loop-delay', 'PLANTSTORE_MAX_EVENT_LOOP_DELAY', '1s', 'duration', 'event-loop lag past which requests get 503 (0: never)'],
  metrics: ['--metrics', 'PLANTSTORE_METRICS', 'open', 'mode', 'GET /metrics: off, open, or token (needs --metrics-token)'],
  metricsToken: ['--metrics-token', 'PLANTSTORE_METRICS_TOKEN', '', 'token', 'the bearer token /metrics asks for with --metrics token'],
  jwtIssuer: ['--jwt-issuer', 'PLANTSTORE_JWT_ISSUER', '', 'url', 'accept JWT bearer tokens from this OpenID Connect issuer'],
  jwtAudience: ['--jwt-audience', 'PLANTSTORE_JWT_AUDIENCE', '', 'audience', 'the aud a JWT must carry (default: not checked)'],
  jwtJwksUrl: ['--jwt-jwks-url', 'PLANTSTORE_JWT_JWKS_URL', '', 'url', "the issuer's JWKS (default: from its OpenID discovery document)"],
  corsOrigins: ['--cors-origins', 'PLANTSTORE_CORS_ORIGINS', '', 'origins', 'browser origins allowed to call the API, comma-separated (https://app.example.com), or * (default: no CORS)'],
  trustProxy: ['--trust-proxy', 'PLANTSTORE_TRUST_PROXY', '', 'proxies', 'addresses or CIDRs of proxies whose X-Forwarded-For names the client, comma-separated, or a hop count (default: none)'],
  webhookTimeout: ['--webhook-timeout', 'PLANTSTORE_WEBHOOK_TIMEOUT', '10s', 'duration', 'how long one webhook attempt may take'],
  webhookConcurrency: ['--webhook-concurrency', 'PLANTSTORE_WEBHOOK_CONCURRENCY', '64', 'n', 'most webhook deliveries in flight per subscriber and process; the number grows toward it while the subscriber answers quickly'],
  webhookRetryBase: ['--webhook-retry-base', 'PLANTSTORE_WEBHOOK_RETRY_BASE', '2s', 'duration', 'wait before the first webhook retry; doubles after each'],
  webhookGiveUpAfter: ['--webhook-give-up-after', 'PLANTSTORE_WEBHOOK_GIVE_UP_AFTER', '3d', 'duration', 'give up an undelivered webhook this long after its event'],
  webhookAllowPrivate: ['--webhook-allow-private', 'PLANTSTORE_WEBHOOK_ALLOW_PRIVATE', 'false', 'boolean', 'let subscriptions made over HTTP target loopback, private and special-purpose addresses: true or false'],
  webhookMaxPerOwner: ['--webhook-max-per-owner', 'PLANTSTORE_WEBHOOK_MAX_PER_OWNER', '25', 'n', 'webhook subscriptions one token (or JWT subject) may hold'],
  webhookMaxConnections: ['--webhook-max-connections', 'PLANTSTORE_WEBHOOK_MAX_CONNECTIONS', '256', 'n', 'outbound webhook connections of a process, all subscribers together']
} as const satisfies Record<keyof RawConfig, readonly [string, string, string, string, string]>

/** Bad configuration: its message is the one line start-up prints before exiting. */
export class ConfigError extends Error {
  constructor (setting: keyof RawConfig, value: string, expected: string) {
    const [flag, env] = SETTINGS[setting]
    super(`invalid ${flag} (${env}) ${JSON.stringify(value)}: ${expected}`)
  }
}

function integer (setting: keyof RawConfig, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= min && n <= max)) throw new ConfigError(setting, value, `expected an integer from ${min} to ${max}`)
  return n
}

function boolean (setting: keyof RawConfig, value: string): boolean {
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0' || value === '') return false
  throw new ConfigError(setting, value, 'expected true or false')
}

function duration (setting: keyof RawConfig, value: string, { zero = false } = {}): number {
  if (zero && value === '0') return 0
  const ms = /^\d+ms$/.test(value) ? Number(value.slice(0, -2)) : parseDuration(value)
  if (ms === undefined || ms <= 0) {
    throw new ConfigError(setting, value, `expected a duration such as 500ms, 10s, 5m, 2h or 3d${zero ? ', or 0 for none' : ''}`)
  }
  return ms
}

function metricsSettings (mode: string, token: string): Config['metrics'] {
  if (mode !== 'off' && mode !== 'open' && mode !== 'token') throw new ConfigError('metrics', mode, 'expected off, open or token')
  if (mode === 'token' && token.length < 16) throw new ConfigError('metricsToken', token, 'expected a token of at least 16 characters with --metrics token')
  return { mode, token: mode === 'token' ? token : undefined }
}

function httpUrl (setting: keyof RawConfig, value: string): string {
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href
  } catch {}
  throw new ConfigError(setting, value, 'expected an http:// or https:// URL')
}

function jwtSettings (issuer: string, audience: string, jwksUrl: string): Config['jwt'] {
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

function corsSettings (value: string): Config['cors'] {
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

function trustProxySettings (value: string): Config['trustProxy'] {
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

export function parseDatabaseUrl (value: string, { synchronous = 'FULL', poolSize = 10 }: {
  synchronous?: SqliteSynchronous, poolSize?: number
} = {}): DatabaseUrl {
  if (value === 'sqlite::memory:') return { kind: 'sqlite', path: ':memory:', synchronous }
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length) {
    return { kind: 'sqlite', path: value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''), synchronous }
  }
  if (/^postgres(ql)?:\/\//.test(value)) return { kind: 'postgres', url: value, poolSize }
  throw new ConfigError('database', value, 'expected sqlite:PATH, sqlite::memory: or postgres://…')
}

/** Turns raw settings into one frozen Config; throws ConfigError naming the first bad setting. */
export function loadConfig (raw: RawConfig = {}): Config {
  const value = (setting: keyof RawConfig) => raw[setting] ?? SETTINGS[setting][2]
  const synchronous = value('sqliteSynchronous').toUpperCase()
  if (!['OFF', 'NORMAL', 'FULL', 'EXTRA'].includes(synchronous)) {
    throw new ConfigError('sqliteSynchronous', value('sqliteSynchronous'), 'expected FULL, NORMAL, EXTRA or OFF')
  }
  const logLevel = value('logLevel')
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('logLevel', logLevel, `expected one of ${LOG_LEVELS.join(', ')}`)
  }
  const host = value('host')
  if (host.trim() === '') throw new ConfigError('host', host, 'expected a host name or address')
  return Object.freeze({
    host,
    port: integer('port', value('port'), 0, 65535),
    database: parseDatabaseUrl(value('database'), {
      synchronous: synchronous as SqliteSynchronous,
      poolSize: integer('databasePoolSize', value('databasePoolSize'), 1, 1000)
    }),
    logLevel: logLevel as LogLevel,
    bodyLimit: integer('bodyLimit', value('bodyLimit'), 1024, 64 * 1024 * 1024),
    caches: Object.freeze({
      readBytes: integer('readCacheSize', value('readCacheSize'), 0, 2 ** 40),
      tokenBytes: integer('tokenCacheSize', value('tokenCacheSize'), 4096, 2 ** 40)
    }),
    maxConnections: integer('maxConnections', value('maxConnections'), 1, 1_000_000),
    publicUrl: value('publicUrl') === '' ? undefined : httpUrl('publicUrl', value('publicUrl')).replace(/\/$/, ''),
    firstTokenFile: value('firstTokenFile') === '' ? undefined : value('firstTokenFile'),
    workers: integer('workers', value('workers'), 1, 64),
    metrics: Object.freeze(metricsSettings(value('metrics'), value('metricsToken'))),
    jwt: jwtSettings(value('jwtIssuer'), value('jwtAudience'), value('jwtJwksUrl')),
    cors: corsSettings(value('corsOrigins')),
    trustProxy: trustProxySettings(value('trustProxy')),
    limits: Object.freeze({
      authFailures: integer('authFailureLimit', value('authFailureLimit'), 0, 1_000_000),
      perToken: integer('rateLimit', value('rateLimit'), 0, 100_000_000),
      requestTimeoutMs: duration('requestTimeout', value('requestTimeout')),
      headersTimeoutMs: duration('headersTimeout', value('headersTimeout')),
      keepAliveTimeoutMs: duration('keepAliveTimeout', value('keepAliveTimeout')),
      maxEventLoopDelayMs: duration('maxEventLoopDelay', value('maxEventLoopDelay'), { zero: true })
    }),
    webhooks: Object.freeze({
      timeoutMs: duration('webhookTimeout', value('webhookTimeout')),
      perSubscription: integer('webhookConcurrency', value('webhookConcurrency'), 1, 256),
      retryBaseMs: duration('webhookRetryBase', value('webhookRetryBase')),
      giveUpAfterMs: duration('webhookGiveUpAfter', value('webhookGiveUpAfter')),
      pollMs: 1000,
      allowPrivate: boolean('webhookAllowPrivate', String(value('webhookAllowPrivate'))),
      maxPerOwner: integer('webhookMaxPerOwner', value('webhookMaxPerOwner'), 1, 100_000),
      maxConnections: integer('webhookMaxConnections', value('webhookMaxConnections'), 1, 100_000)
    })
  })
}
