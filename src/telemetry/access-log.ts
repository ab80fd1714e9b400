import { hostname } from 'node:os'
import { LogController } from 'fastify'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'

/**
 * One log line per request, written when the answer is sent: request id, method, URL without its
 * query, client address, status and time (Fastify's default is two lines, each serialising the whole request).
 * The line is the one pino would write, made from a template and handed to the log's destination:
 * pino's generic serialisation of this fixed shape cost more than anything else the request did
 * (the cost ladder in `npm run bench` showed it). Headers are never logged, so neither is a token;
 * failures are logged where they are handled (http/error-handler.ts).
 */
export class AccessLog extends LogController {
  #write: ((line: string) => void) | undefined
  readonly #prefix = '{"level":30,"time":'
  readonly #process = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"reqId":"`

  /** Where lines go, once the app's logger exists; nothing is written when its level is above info. */
  useLogger (log: FastifyBaseLogger, destination: { write: (line: string) => unknown }) {
    const enabled = (log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') ?? true
    this.#write = enabled ? (line) => { destination.write(line) } : undefined
  }

  override incomingRequest () {}

  override requestCompleted (_error: Error | null, request: FastifyRequest, reply: FastifyReply) {
    if (this.#write === undefined) return
    // The request id is a UUID or a caller's id of [A-Za-z0-9._:-] (request-id.ts): nothing to escape.
    const path = request.url.split('?', 1)[0]!
    // The client's address is the socket's, or with --trust-proxy the one a trusted proxy forwarded.
    this.#write(`${this.#prefix}${Date.now()}${this.#process}${request.id}","method":"${request.method}","url":${JSON.stringify(path)},` +
      `"remoteAddress":${JSON.stringify(request.ip)},"statusCode":${reply.statusCode},"responseTimeMs":${Math.round(reply.elapsedTime * 100) / 100},` +
      '"msg":"request completed"}\n')
  }
}
