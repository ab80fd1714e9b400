import type { SqliteSynchronous } from './store/sqlite.js'
import { parseDuration } from './tokens.js'

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
  /** Processes `serve` runs (node:cluster); 1 serves from this process. */
  readonly workers: number
  readonly webhooks: {
    readonly timeoutMs: number
    readonly perSubscription: number
    readonly retryBaseMs: number
    readonly giveUpAfterMs: number
    readonly pollMs: number
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
}

/** The flag and environment twin of each setting, for error lines and --help. */
export const SETTINGS = {
  host: ['--host', 'PLANTSTORE_HOST', '127.0.0.1'],
  port: ['--port', 'PLANTSTORE_PORT', '8080'],
  database: ['--database', 'PLANTSTORE_DATABASE_URL', 'sqlite:./data/plantstore.db'],
  databasePoolSize: ['--database-pool-size', 'PLANTSTORE_DATABASE_POOL_SIZE', '10'],
  logLevel: ['--log-level', 'PLANTSTORE_LOG_LEVEL', 'info'],
  bodyLimit: ['--body-limit', 'PLANTSTORE_BODY_LIMIT', '65536'],
  sqliteSynchronous: ['--sqlite-synchronous', 'PLANTSTORE_SQLITE_SYNCHRONOUS', 'FULL'],
  webhookTimeout: ['--webhook-timeout', 'PLANTSTORE_WEBHOOK_TIMEOUT', '10s'],
  webhookConcurrency: ['--webhook-concurrency', 'PLANTSTORE_WEBHOOK_CONCURRENCY', '4'],
  webhookRetryBase: ['--webhook-retry-base', 'PLANTSTORE_WEBHOOK_RETRY_BASE', '2s'],
  workers: ['--workers', 'PLANTSTORE_WORKERS', '1'],
  webhookGiveUpAfter: ['--webhook-give-up-after', 'PLANTSTORE_WEBHOOK_GIVE_UP_AFTER', '3d']
} as const satisfies Record<keyof RawConfig, readonly [string, string, string]>

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

function duration (setting: keyof RawConfig, value: string): number {
  const ms = /^\d+ms$/.test(value) ? Number(value.slice(0, -2)) : parseDuration(value)
  if (ms === undefined || ms <= 0) throw new ConfigError(setting, value, 'expected a duration such as 500ms, 10s, 5m, 2h or 3d')
  return ms
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
    workers: integer('workers', value('workers'), 1, 64),
    webhooks: Object.freeze({
      timeoutMs: duration('webhookTimeout', value('webhookTimeout')),
      perSubscription: integer('webhookConcurrency', value('webhookConcurrency'), 1, 256),
      retryBaseMs: duration('webhookRetryBase', value('webhookRetryBase')),
      giveUpAfterMs: duration('webhookGiveUpAfter', value('webhookGiveUpAfter')),
      pollMs: 1000
    })
  })
}
