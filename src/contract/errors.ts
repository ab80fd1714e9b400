import { format } from 'node:util'
import type { Refusal } from './etag.js'

/** An error the API answers with: HTTP status, stable code (docs/errors.md) and the Error body's message. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  readonly code: number
  readonly headers: Record<string, string>

  constructor (status: number, code: number, message: string, headers: Record<string, string> = {}) {
    // An answer to a caller, not a fault of ours: its stack would say nothing (a 5xx logs its cause's),
    // and capturing one was a tenth of the CPU a flood of 429s cost.
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = stackTraceLimit
    this.status = status
    this.code = code
    this.headers = headers
  }
}

/** One row of the error table, as docs/errors.md shows it (generated from this file). */
export interface ErrorRow { name: string, code: number, status: number, meaning: string }
export const ERROR_TABLE: ErrorRow[] = []

/** Declares one row of the error table: `new PlantConflict(id)` fills the `%s` of the message. */
function apiError (name: string, code: number, status: number, meaning: string, template: string, headers: Record<string, string> = {}) {
  ERROR_TABLE.push({ name, code, status, meaning })
  const declared = class extends ApiError {
    constructor (...args: unknown[]) {
      super(status, code, format(template, ...args), headers)
      this.name = name
    }
  }
  return declared
}

/** A row whose class builds its own message and headers. */
function row (name: string, code: number, status: number, meaning: string) {
  ERROR_TABLE.push({ name, code, status, meaning })
}

// The codes of the error table (docs/errors.md), in its order.
export const InvalidJson = apiError('InvalidJson', 1000, 400, 'body is not valid JSON (or the request is not valid HTTP)', 'body is not valid JSON: %s')
export const SchemaMismatch = apiError('SchemaMismatch', 1001, 400, 'body or parameter does not match the schema; the message names the field (`body/id must be an int64 integer`); also 408 when a request does not arrive in time, and 421 when a server on loopback is asked for a `Host` that is not its own', '%s')
/** A loopback server asked for another host's name (DNS rebinding): 421, code 1001 (SchemaMismatch's row). */
export class MisdirectedRequest extends ApiError {
  override name = 'MisdirectedRequest'
  constructor (host: string) {
    super(421, 1001, `headers/host ${JSON.stringify(host)} is not a name this server answers to; it listens on loopback and answers loopback names and --public-url's host only`)
  }
}
export const UnsupportedMediaType = apiError('UnsupportedMediaType', 1002, 415, 'a body is present and its content type is not the operation\'s (`application/json`; `application/merge-patch+json` for PATCH of a plant)', 'content type %s is not supported; send %s')
export const BodyTooLarge = apiError('BodyTooLarge', 1003, 413, 'body larger than the limit (64 KiB by default); also 431 for headers over 16 KiB', 'body is larger than the limit of %d bytes')
export const WebhookUrlRefused = apiError('WebhookUrlRefused', 1004, 400, 'webhook URL refused: not http(s), port 0, or its host is or resolves to an address that is not public', 'webhook URL refused: %s')
export const IdempotencyKeyReused = apiError('IdempotencyKeyReused', 1005, 422, 'this `Idempotency-Key` was used with another request (method, path, `If-Match` or body)', 'Idempotency-Key %s was used with another request; send a new key for a new request')
export const MissingCredentials = apiError('MissingCredentials', 2000, 401, 'no bearer credentials (missing header, other scheme)', 'bearer token required', {
  'www-authenticate': 'Bearer realm="plantstore"'
})
export const InvalidToken = apiError('InvalidToken', 2001, 401, 'token unknown, expired or revoked', 'token is unknown, expired or revoked', {
  'www-authenticate': 'Bearer realm="plantstore", error="invalid_token", error_description="the token is unknown, expired or revoked"'
})
row('InsufficientScope', 2002, 403, 'token lacks the scope (`WWW-Authenticate` names it)')
export class InsufficientScope extends ApiError {
  override name = 'InsufficientScope'
  constructor (scope: string) {
    super(403, 2002, `token lacks the scope ${scope}`, {
      'www-authenticate': `Bearer realm="plantstore", error="insufficient_scope", scope="${scope}"`
    })
  }
}
export const MalformedAuthorization = apiError('MalformedAuthorization', 2003, 400, 'malformed Authorization header', 'malformed Authorization header: %s', {
  'www-authenticate': 'Bearer realm="plantstore", error="invalid_request"'
})
export const NotFound = apiError('NotFound', 3000, 404, 'no such plant, subscription or route', '%s')
export const PlantConflict = apiError('PlantConflict', 3001, 409, 'plant id exists with different content', 'plant %s exists with different content')
row('PreconditionFailed', 3002, 412, '`If-Match` does not match the plant\'s current `ETag`, or `If-None-Match` does')
export class PreconditionFailed extends ApiError {
  override name = 'PreconditionFailed'
  constructor ({ header, sent }: Refusal, current: string) {
    super(412, 3002, `${header} ${sent} ${header === 'If-Match' ? 'does not match' : 'matches'} the current ETag ${current}`)
  }
}
export const TokenNameConflict = apiError('TokenNameConflict', 3004, 409, 'a token with this name exists', 'a token named %s exists')
row('MethodNotAllowed', 3003, 405, 'the path exists but not with this method (`Allow` lists the methods it has)')
export class MethodNotAllowed extends ApiError {
  override name = 'MethodNotAllowed'
  constructor (method: string, path: string, allowed: string[]) {
    super(405, 3003, `${method} is not allowed on ${path}; it allows ${allowed.join(', ')}`, { allow: allowed.join(', ') })
  }
}
export const IdempotencyKeyInFlight = apiError('IdempotencyKeyInFlight', 3005, 409, 'a request with this `Idempotency-Key` is still running; retry once it has answered', 'a request with Idempotency-Key %s is still running; retry once it has answered', { 'retry-after': '1' })
row('TooManyRequests', 4000, 429, 'too many requests (`Retry-After` set)')
export class TooManyRequests extends ApiError {
  override name = 'TooManyRequests'
  constructor (retryAfterSeconds: number, message = 'too many requests') {
    super(429, 4000, message, { 'retry-after': String(retryAfterSeconds) })
  }
}
export const InternalError = apiError('InternalError', 5000, 500, 'internal error; the log entry has the request id the answer carries in `x-request-id`', 'internal error (request id %s)')
row('StorageUnavailable', 5001, 503, 'storage unavailable or overloaded, or the server is shutting down (`Retry-After` set)')
export class StorageUnavailable extends ApiError {
  override name = 'StorageUnavailable'
  constructor (message = 'storage unavailable or overloaded; retry later') {
    super(503, 5001, message, { 'retry-after': '1' })
  }
}
