import type { Socket } from 'node:net'

/** Largest request head (request line and headers) Node's parser accepts; past it, 431. */
export const MAX_HEADER_BYTES = 16 * 1024

/**
 * Fastify's clientErrorHandler: failures of Node's HTTP parser, before any route exists, still answer
 * with the contract's Error body (Fastify's default writes its own `{ statusCode, error, message }`).
 * A head over the limit is 431 (code 1003, like an oversized body), a request that did not arrive in
 * time 408 (code 1001), anything unparseable 400 (code 1000).
 */
export function answerClientError (error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // The status lines are written out rather than taken from node:http's STATUS_CODES: an ESM import
  // of node:http evaluates all its exports, WebSocket among them, which loads Node's bundled undici
  // (fetch and all, a few MiB of heap) into a server that never uses it.
  const [status, code, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? ['431 Request Header Fields Too Large', 1003, `request headers are larger than the limit of ${MAX_HEADER_BYTES} bytes`]
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['408 Request Timeout', 1001, 'the request did not arrive within the time limit']
      : ['400 Bad Request', 1000, 'the request is not valid HTTP']
  const body = JSON.stringify({ error: code, message })
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}
