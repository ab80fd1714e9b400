import { LogController } from 'fastify'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * One log line per request, written through the request's logger when the answer is sent (so the app's
 * redaction applies): request id, method, URL without its query, client address, status and time.
 * Fastify's default is two lines, each serialising the whole request. Headers are never logged, so
 * neither is a token; failures are logged where they are handled (http/error-handler.ts).
 */
export class AccessLog extends LogController {
  override incomingRequest () {}

  override requestCompleted (_error: Error | null, request: FastifyRequest, reply: FastifyReply) {
    logRequest(request, reply, reply.statusCode, 'request completed')
  }
}

/** The access log's line for a request whose client hung up before its answer (Fastify writes none). */
export function logHangUp (request: FastifyRequest, reply: FastifyReply) {
  logRequest(request, reply, 499, 'client hung up')
}

function logRequest (request: FastifyRequest, reply: FastifyReply, statusCode: number, message: string) {
  // The client's address is the socket's, or with --trust-proxy the one a trusted proxy forwarded.
  request.log.info({
    method: request.method,
    url: request.url.split('?', 1)[0],
    remoteAddress: request.ip,
    statusCode,
    responseTimeMs: Math.round(reply.elapsedTime * 100) / 100
  }, message)
}
