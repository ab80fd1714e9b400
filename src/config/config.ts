import type { SqliteSynchronous } from './parsers.js'
import {
  boolean, corsSettings, duration, httpUrl, integer, jwtSettings, metricsSettings, parseDatabaseUrl, trustProxySettings
} from './parsers.js'
import type { CorsSettings, DatabaseUrl, JwtSettings, MetricsSettings, TrustProxySettings } from './parsers.js'
import { ConfigError, SETTINGS } from './settings.js'
import type { RawConfig } from './settings.js'

export { ConfigError, SETTINGS } from './settings.js'
export type { RawConfig, Setting } from './settings.js'
export { parseDatabaseUrl } from './parsers.js'
export type { DatabaseUrl } from './parsers.js'

export interface Config {
  readonly host: string
  readonly port: number
  readonly database: DatabaseUrl
  readonly logLevel: LogLevel
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number
  readonly batchBodyLimit: number
  /** How long an Idempotency-Key's answer is kept. */
  readonly idempotencyRetentionMs: number
  /** Bytes the list-page cache may hold, and each process's token cache. */
  readonly caches: { readonly readBytes: number, readonly tokenBytes: number }
  /** Open client connections the server accepts at once; past it new ones are closed at once. */
  readonly maxConnections: number
  /** Open client connections from one address (trusted proxies aside); past it new ones are closed at once. */
  readonly maxConnectionsPerAddress: number
  /** The server's public URL, for the document's `servers`; undefined: a relative URL. */
  readonly publicUrl: string | undefined
  /** Where the first-start token goes when stderr is not a terminal; undefined: beside the SQLite store. */
  readonly firstTokenFile: string | undefined
  /** Processes `serve` runs (node:cluster); 1 serves from this process. */
  readonly workers: number
  /** `/metrics`: off, open to anyone who reaches the port, or behind `metricsToken`. */
  readonly metrics: MetricsSettings
  /** JWT bearer tokens from an OpenID Connect issuer, beside the opaque ones; undefined when not set. */
  readonly jwt: JwtSettings
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
  readonly cors: CorsSettings
  /** Fastify's trustProxy: the proxies whose X-Forwarded-For names the client (false: none). */
  readonly trustProxy: TrustProxySettings
  readonly events: {
    readonly retentionMs: number
    readonly maxStreams: number
    readonly maxStreamsPerToken: number
    readonly streamBufferBytes: number
    /** How long a stream ticket may open streams. */
    readonly ticketLifetimeMs: number
    /** How long revoked and expired tokens are kept. */
    readonly tokenRetentionMs: number
  }
  readonly webhooks: {
    readonly timeoutMs: number
    readonly perSubscription: number
    readonly retryBaseMs: number
    readonly giveUpAfterMs: number
    readonly disableAfterMs: number
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

/** Turns raw settings into one frozen Config; throws ConfigError naming the first bad setting. */
export function loadConfig (raw: RawConfig = {}): Config {
  const value = (setting: keyof RawConfig) => raw[setting] ?? SETTINGS[setting].fallback
  const synchronous = value('sqliteSynchronous').toUpperCase()
  if (!['OFF', 'NORMAL', 'FULL', 'EXTRA'].includes(synchronous)) {
    throw new ConfigError('sqliteSynchronous', value('sqliteSynchronous'), 'expected FULL, NORMAL, EXTRA or OFF')
  }
  const logLevel = value('logLevel')
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('logLevel', logLevel, `expected one of ${LOG_LEVELS.join(', ')}`)
  }
  const maxConnections = integer('maxConnections', value('maxConnections'), 1, 1_000_000)
  // Streams may hold only part of the connections, so that requests always find room.
  const maxStreams = value('maxStreams') === '' ? Math.max(1, Math.floor(maxConnections / 2)) : integer('maxStreams', value('maxStreams'), 1, 1_000_000)
  if (maxStreams >= maxConnections) {
    throw new ConfigError('maxStreams', value('maxStreams'), `expected fewer than --max-connections (${maxConnections}), so that requests always have room`)
  }
  const host = value('host')
  if (host.trim() === '') throw new ConfigError('host', host, 'expected a host name or address')
  return Object.freeze({
    host,
    port: integer('port', value('port'), 0, 65535),
    database: parseDatabaseUrl(value('database'), {
      synchronous: synchronous as SqliteSynchronous,
      poolSize: integer('databasePoolSize', value('databasePoolSize'), 1, 1000),
      passwordFile: value('databasePasswordFile')
    }),
    logLevel: logLevel as LogLevel,
    bodyLimit: integer('bodyLimit', value('bodyLimit'), 1024, 64 * 1024 * 1024),
    batchBodyLimit: integer('batchBodyLimit', value('batchBodyLimit'), 1024, 64 * 1024 * 1024),
    idempotencyRetentionMs: duration('idempotencyRetention', value('idempotencyRetention')),
    caches: Object.freeze({
      readBytes: integer('readCacheSize', value('readCacheSize'), 0, 2 ** 40),
      tokenBytes: integer('tokenCacheSize', value('tokenCacheSize'), 4096, 2 ** 40)
    }),
    maxConnections,
    maxConnectionsPerAddress: integer('maxConnectionsPerAddress', value('maxConnectionsPerAddress'), 1, 1_000_000),
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
    events: Object.freeze({
      retentionMs: duration('eventRetention', value('eventRetention')),
      maxStreams,
      maxStreamsPerToken: integer('maxStreamsPerToken', value('maxStreamsPerToken'), 1, 1_000_000),
      streamBufferBytes: integer('streamBufferSize', value('streamBufferSize'), 1024, 2 ** 30),
      ticketLifetimeMs: duration('ticketLifetime', value('ticketLifetime')),
      tokenRetentionMs: duration('tokenRetention', value('tokenRetention'))
    }),
    webhooks: Object.freeze({
      timeoutMs: duration('webhookTimeout', value('webhookTimeout')),
      perSubscription: integer('webhookConcurrency', value('webhookConcurrency'), 1, 256),
      retryBaseMs: duration('webhookRetryBase', value('webhookRetryBase')),
      giveUpAfterMs: duration('webhookGiveUpAfter', value('webhookGiveUpAfter')),
      disableAfterMs: duration('webhookDisableAfter', value('webhookDisableAfter')),
      pollMs: 1000,
      allowPrivate: boolean('webhookAllowPrivate', String(value('webhookAllowPrivate'))),
      maxPerOwner: integer('webhookMaxPerOwner', value('webhookMaxPerOwner'), 1, 100_000),
      maxConnections: integer('webhookMaxConnections', value('webhookMaxConnections'), 1, 100_000)
    })
  })
}
