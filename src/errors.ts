import { format } from 'node:util'

/** An error the API answers with: HTTP status, stable code (PRODUCT.md) and the Error body's message. */
export class ApiError extends Error {
  readonly status: number
  readonly code: number
  readonly headers: Record<string, string>

  constructor (status: number, code: number, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.status = status
    this.code = code
    this.headers = headers
  }
}

/** Declares one row of the error table: `new PlantConflict(id)` fills the `%s` of the message. */
function apiError (code: number, status: number, template: string, headers: Record<string, string> = {}) {
  return class extends ApiError {
    constructor (...args: unknown[]) {
      super(status, code, format(template, ...args), headers)
    }
  }
}

// The codes of PRODUCT.md, in its order.
export const InvalidJson = apiError(1000, 400, 'body is not valid JSON: %s')
export const SchemaMismatch = apiError(1001, 400, '%s')
export const UnsupportedMediaType = apiError(1002, 415, 'content type %s is not supported; send application/json')
export const WebhookUrlRefused = apiError(1004, 400, 'webhook URL refused: %s')
export const BodyTooLarge = apiError(1003, 413, 'body is larger than the limit of %d bytes')
export const MissingCredentials = apiError(2000, 401, 'bearer token required', {
  'www-authenticate': 'Bearer realm="plantstore"'
})
export const InvalidToken = apiError(2001, 401, 'token is unknown, expired or revoked', {
  'www-authenticate': 'Bearer realm="plantstore", error="invalid_token", error_description="the token is unknown, expired or revoked"'
})
export class InsufficientScope extends ApiError {
  constructor (scope: string) {
    super(403, 2002, `token lacks the scope ${scope}`, {
      'www-authenticate': `Bearer realm="plantstore", error="insufficient_scope", scope="${scope}"`
    })
  }
}
export const MalformedAuthorization = apiError(2003, 400, 'malformed Authorization header: %s', {
  'www-authenticate': 'Bearer realm="plantstore", error="invalid_request"'
})
export const NotFound = apiError(3000, 404, '%s')
export const PlantConflict = apiError(3001, 409, 'plant %s exists with different content')
export const PreconditionFailed = apiError(3002, 412, 'If-Match %s does not match the current ETag %s')
export class MethodNotAllowed extends ApiError {
  constructor (method: string, path: string, allowed: string[]) {
    super(405, 3003, `${method} is not allowed on ${path}; it allows ${allowed.join(', ')}`, { allow: allowed.join(', ') })
  }
}
export class TooManyRequests extends ApiError {
  constructor (retryAfterSeconds: number, message = 'too many requests') {
    super(429, 4000, message, { 'retry-after': String(retryAfterSeconds) })
  }
}
export const InternalError = apiError(5000, 500, 'internal error (request id %s)')
export const StorageUnavailable = apiError(5001, 503, 'storage unavailable or overloaded; retry later', {
  'retry-after': '1'
})
