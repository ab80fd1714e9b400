import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import {
  ApiError, BodyTooLarge, InternalError, InvalidJson, NotFound, SchemaMismatch, StorageUnavailable,
  TooManyRequests, UnsupportedMediaType
} from '../contract/errors.js'
import { describeSchemaErrors } from '../contract/validators.js'
import type { AjvError } from '../contract/validators.js'
import { StoreUnavailable } from '../store/errors.js'
import { ClientHungUp } from '../lib/hang-up.js'

function describeValidation (errors: AjvError[], context: string, request: FastifyRequest): string {
  if (context === 'body' && request.body === undefined) return 'body is required'
  if (context !== 'querystring') return describeSchemaErrors(errors, context)
  // A repeated parameter arrives as an array, which its schema then calls the wrong type.
  const name = errors[0]?.instancePath.slice(1) ?? ''
  if (Array.isArray((request.query as Record<string, unknown>)[name])) return `query/${name} may be given only once`
  // Fastify names the query string `querystring`; messages say `query`, as the filter's and the cursor's do.
  return describeSchemaErrors(errors, 'query')
}

/** Maps anything thrown in any layer to an ApiError of the table in errors.ts. */
export function toApiError (error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof StoreUnavailable) return new StorageUnavailable()
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvError[] }
  if (fastifyError.validation !== undefined) {
    return new SchemaMismatch(describeValidation(fastifyError.validation, fastifyError.validationContext ?? 'request', request))
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaType(JSON.stringify(request.headers['content-type'] ?? ''), (request.routeOptions.config as { contentType?: string }).contentType ?? 'application/json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BodyTooLarge(request.routeOptions.bodyLimit)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SchemaMismatch('body is required')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidJson('the body length does not match Content-Length')
    case 'FST_ERR_BAD_URL':
      return new NotFound(`no route for ${request.method} ${request.url}`)
  }
  const status = fastifyError.statusCode ?? 500
  if (status === 503) return new StorageUnavailable()
  if (status === 429) return new TooManyRequests(1)
  if (status >= 400 && status < 500) return new SchemaMismatch(fastifyError.message ?? 'bad request')
  return new InternalError(request.id)
}

/** Sends the contract's Error body; 5xx other than storage outages are logged with their cause. */
export function sendError (error: unknown, request: FastifyRequest, reply: FastifyReply) {
  // Work dropped because its client hung up: no one to answer.
  if (error instanceof ClientHungUp) return reply.code(499).send()
  const apiError = toApiError(error, request)
  if (apiError.status === 500) request.log.error({ err: error }, 'internal error')
  // A database outage is told once, when it begins (telemetry/outage-log.ts), not on every request.
  else if (apiError.status >= 500 && request.server.storeOutage?.failed(error) !== true) request.log.warn({ err: error }, apiError.message)
  return reply
    .code(apiError.status)
    .headers(apiError.headers)
    // Router-level failures skip the onRequest hooks, so these are set here as well.
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .type('application/json; charset=utf-8')
    .send({ error: apiError.code, message: apiError.message })
}

/** The one error handler (the answer to a request no route takes is allowed-methods.ts's). */
export default fp(async (app) => {
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply))
}, { name: 'error-handler' })
