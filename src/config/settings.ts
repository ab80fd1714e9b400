/** One setting of `serve`: its flag, its PLANTSTORE_* twin, its default, the flag's argument name and its help line. */
export interface Setting {
  readonly flag: string
  readonly env: string
  readonly fallback: string
  readonly argument: string
  readonly help: string
}

/** Each setting's flag, environment twin, default, argument name and help line: the table `serve --help` and docs/configuration.md show. */
export const SETTINGS = {
  host: { flag: '--host', env: 'PLANTSTORE_HOST', fallback: '127.0.0.1', argument: 'host', help: 'address to listen on' },
  port: { flag: '--port', env: 'PLANTSTORE_PORT', fallback: '8080', argument: 'port', help: 'port to listen on (0: any free port)' },
  database: { flag: '--database', env: 'PLANTSTORE_DATABASE_URL', fallback: 'sqlite:./data/plantstore.db', argument: 'url', help: 'sqlite:PATH, sqlite::memory: or postgres://…' },
  databasePasswordFile: { flag: '--database-password-file', env: 'PLANTSTORE_DATABASE_PASSWORD_FILE', fallback: '', argument: 'path', help: 'a file holding the PostgreSQL password, for a URL without one (a container secret)' },
  databasePoolSize: { flag: '--database-pool-size', env: 'PLANTSTORE_DATABASE_POOL_SIZE', fallback: '10', argument: 'n', help: 'PostgreSQL connections per process' },
  logLevel: { flag: '--log-level', env: 'PLANTSTORE_LOG_LEVEL', fallback: 'info', argument: 'level', help: 'fatal, error, warn, info, debug, trace or silent' },
  bodyLimit: { flag: '--body-limit', env: 'PLANTSTORE_BODY_LIMIT', fallback: '65536', argument: 'bytes', help: 'largest request body' },
  batchBodyLimit: { flag: '--batch-body-limit', env: 'PLANTSTORE_BATCH_BODY_LIMIT', fallback: '1048576', argument: 'bytes', help: 'largest POST /batch body' },
  idempotencyRetention: { flag: '--idempotency-retention', env: 'PLANTSTORE_IDEMPOTENCY_RETENTION', fallback: '24h', argument: 'duration', help: 'how long an Idempotency-Key keeps its answer for a retry' },
  sqliteSynchronous: { flag: '--sqlite-synchronous', env: 'PLANTSTORE_SQLITE_SYNCHRONOUS', fallback: 'FULL', argument: 'mode', help: 'SQLite synchronous pragma: FULL, EXTRA, NORMAL or OFF' },
  readCacheSize: { flag: '--read-cache-size', env: 'PLANTSTORE_READ_CACHE_SIZE', fallback: '8388608', argument: 'bytes', help: 'memory for cached reads, list pages and single plants, on SQLite (0: none)' },
  tokenCacheSize: { flag: '--token-cache-size', env: 'PLANTSTORE_TOKEN_CACHE_SIZE', fallback: '1048576', argument: 'bytes', help: 'memory for cached token lookups' },
  maxConnections: { flag: '--max-connections', env: 'PLANTSTORE_MAX_CONNECTIONS', fallback: '1000', argument: 'n', help: 'client connections open at once, per process; more are closed as they arrive' },
  maxConnectionsPerAddress: { flag: '--max-connections-per-address', env: 'PLANTSTORE_MAX_CONNECTIONS_PER_ADDRESS', fallback: '256', argument: 'n', help: 'client connections open at once from one address, per process (trusted proxies are not counted); more are closed as they arrive' },
  publicUrl: { flag: '--public-url', env: 'PLANTSTORE_PUBLIC_URL', fallback: '', argument: 'url', help: 'the URL clients reach the service at, for the served document (default: a relative URL)' },
  firstTokenFile: { flag: '--first-token-file', env: 'PLANTSTORE_FIRST_TOKEN_FILE', fallback: '', argument: 'path', help: 'where the first-start token is written when stderr is not a terminal (default: first-token beside the SQLite store, or in the working folder)' },
  workers: { flag: '--workers', env: 'PLANTSTORE_WORKERS', fallback: '1', argument: 'n', help: 'processes sharing the port (node:cluster)' },
  authFailureLimit: { flag: '--auth-failure-limit', env: 'PLANTSTORE_AUTH_FAILURE_LIMIT', fallback: '100', argument: 'n', help: 'failed authentications per client address per minute, per process, before 429 (0: no limit)' },
  rateLimit: { flag: '--rate-limit', env: 'PLANTSTORE_RATE_LIMIT', fallback: '0', argument: 'n', help: 'requests per token per minute, per process, a batch counting as its operations (0: no limit)' },
  requestTimeout: { flag: '--request-timeout', env: 'PLANTSTORE_REQUEST_TIMEOUT', fallback: '30s', argument: 'duration', help: 'time for a whole request to arrive' },
  headersTimeout: { flag: '--headers-timeout', env: 'PLANTSTORE_HEADERS_TIMEOUT', fallback: '10s', argument: 'duration', help: 'time for request headers to arrive' },
  keepAliveTimeout: { flag: '--keep-alive-timeout', env: 'PLANTSTORE_KEEP_ALIVE_TIMEOUT', fallback: '5s', argument: 'duration', help: 'idle time before a keep-alive connection closes' },
  maxEventLoopDelay: { flag: '--max-event-loop-delay', env: 'PLANTSTORE_MAX_EVENT_LOOP_DELAY', fallback: '1s', argument: 'duration', help: 'event-loop lag past which requests get 503 (0: never)' },
  metrics: { flag: '--metrics', env: 'PLANTSTORE_METRICS', fallback: 'open', argument: 'mode', help: 'GET /metrics: off, open, or token (needs --metrics-token)' },
  metricsToken: { flag: '--metrics-token', env: 'PLANTSTORE_METRICS_TOKEN', fallback: '', argument: 'token', help: 'the bearer token /metrics asks for with --metrics token' },
  jwtIssuer: { flag: '--jwt-issuer', env: 'PLANTSTORE_JWT_ISSUER', fallback: '', argument: 'url', help: 'accept JWT bearer tokens from this OpenID Connect issuer' },
  jwtAudience: { flag: '--jwt-audience', env: 'PLANTSTORE_JWT_AUDIENCE', fallback: '', argument: 'audience', help: 'the aud a JWT must carry (default: not checked)' },
  jwtJwksUrl: { flag: '--jwt-jwks-url', env: 'PLANTSTORE_JWT_JWKS_URL', fallback: '', argument: 'url', help: "the issuer's JWKS (default: from its OpenID discovery document)" },
  corsOrigins: { flag: '--cors-origins', env: 'PLANTSTORE_CORS_ORIGINS', fallback: '', argument: 'origins', help: 'browser origins allowed to call the API, comma-separated (https://app.example.com), or * (default: no CORS)' },
  trustProxy: { flag: '--trust-proxy', env: 'PLANTSTORE_TRUST_PROXY', fallback: '', argument: 'proxies', help: 'addresses or CIDRs of proxies whose X-Forwarded-For names the client, comma-separated, or a hop count (default: none)' },
  eventRetention: { flag: '--event-retention', env: 'PLANTSTORE_EVENT_RETENTION', fallback: '7d', argument: 'duration', help: 'how long the event log keeps events (GET /events resumes within it); events a webhook has not yet delivered are kept longer' },
  maxStreams: { flag: '--max-streams', env: 'PLANTSTORE_MAX_STREAMS', fallback: '', argument: 'n', help: 'open GET /events streams of a process, all tokens together; below --max-connections, so requests always have room (default: half of it)' },
  maxStreamsPerToken: { flag: '--max-streams-per-token', env: 'PLANTSTORE_MAX_STREAMS_PER_TOKEN', fallback: '20', argument: 'n', help: 'open GET /events streams of one token (or JWT subject) per process' },
  ticketLifetime: { flag: '--ticket-lifetime', env: 'PLANTSTORE_TICKET_LIFETIME', fallback: '10m', argument: 'duration', help: 'how long a stream ticket (POST /events/tickets) may open streams' },
  tokenRetention: { flag: '--token-retention', env: 'PLANTSTORE_TOKEN_RETENTION', fallback: '30d', argument: 'duration', help: 'how long revoked and expired tokens stay listed before they are deleted' },
  streamBufferSize: { flag: '--stream-buffer-size', env: 'PLANTSTORE_STREAM_BUFFER_SIZE', fallback: '1048576', argument: 'bytes', help: 'bytes a GET /events stream may have waiting for a slow reader before it is cut (it resumes with Last-Event-ID)' },
  webhookTimeout: { flag: '--webhook-timeout', env: 'PLANTSTORE_WEBHOOK_TIMEOUT', fallback: '10s', argument: 'duration', help: 'how long one webhook attempt may take' },
  webhookConcurrency: { flag: '--webhook-concurrency', env: 'PLANTSTORE_WEBHOOK_CONCURRENCY', fallback: '64', argument: 'n', help: 'most webhook deliveries in flight per subscriber and process; the number grows toward it while the subscriber answers quickly' },
  webhookRetryBase: { flag: '--webhook-retry-base', env: 'PLANTSTORE_WEBHOOK_RETRY_BASE', fallback: '2s', argument: 'duration', help: 'wait before the first webhook retry; doubles after each' },
  webhookGiveUpAfter: { flag: '--webhook-give-up-after', env: 'PLANTSTORE_WEBHOOK_GIVE_UP_AFTER', fallback: '3d', argument: 'duration', help: 'give up an undelivered webhook this long after its event' },
  webhookDisableAfter: { flag: '--webhook-disable-after', env: 'PLANTSTORE_WEBHOOK_DISABLE_AFTER', fallback: '5d', argument: 'duration', help: 'disable a webhook subscription that has failed without one success for this long (its events are kept until it is enabled again)' },
  webhookAllowPrivate: { flag: '--webhook-allow-private', env: 'PLANTSTORE_WEBHOOK_ALLOW_PRIVATE', fallback: 'false', argument: 'boolean', help: 'let subscriptions made over HTTP target loopback, private and special-purpose addresses: true or false' },
  webhookMaxPerOwner: { flag: '--webhook-max-per-owner', env: 'PLANTSTORE_WEBHOOK_MAX_PER_OWNER', fallback: '25', argument: 'n', help: 'webhook subscriptions one token (or JWT subject) may hold' },
  webhookMaxConnections: { flag: '--webhook-max-connections', env: 'PLANTSTORE_WEBHOOK_MAX_CONNECTIONS', fallback: '256', argument: 'n', help: 'outbound webhook connections of a process, all subscribers together' }
} as const satisfies Record<string, Setting>

/** Every setting as text, as flags and PLANTSTORE_* variables give it. */
export type RawConfig = { [K in keyof typeof SETTINGS]?: string }

/** Bad configuration: its message is the one line start-up prints before exiting. */
export class ConfigError extends Error {
  override name = 'ConfigError'

  constructor (setting: keyof RawConfig, value: string, expected: string) {
    const { flag, env } = SETTINGS[setting]
    super(`invalid ${flag} (${env}) ${JSON.stringify(value)}: ${expected}`)
  }
}
