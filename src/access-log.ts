import { LogController } from 'fastify'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * One log line per request, written when the answer is sent: method, URL without its query, status
 * and time (Fastify's default is two lines, each serialising the whole request). Headers are never
 * logged, so neither is a token; failures are logged where they are handled (plugins/error-handler.ts).
 */
export class AccessLog extends LogController {
  override incomingRequest () {}

  override requestCompleted (_error: Error | null, request: FastifyRequest, reply: FastifyReply) {
    request.log.info({
      method: request.method,
      url: request.url.split('?', 1)[0],
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 100) / 100
    }, 'request completed')
  }
}
