import type { FastifyInstance } from 'fastify'
import type { Config } from '../config/config.js'

/**
 * Connections the kernel may queue before they are accepted (capped by net.core.somaxconn). Node's 511
 * filled up while one address reopened its connections as fast as the per-address cap closed them, and
 * then other clients' connections waited a second for their SYN to be sent again.
 */
export const LISTEN_BACKLOG = 4096

/**
 * Listens on the configured address; SIGTERM and SIGINT then stop accepting, let in-flight requests
 * finish, close the store (the store plugin's onClose) and exit 0. Answers the address listened on.
 */
export async function listen (app: FastifyInstance, config: Config): Promise<URL> {
  await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG })
  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'draining in-flight requests, then closing')
    app.close().then(() => process.exit(0), (error: unknown) => {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    })
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  // A wildcard address is reachable on loopback, which is what a printed curl line should use.
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host
  return new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}`)
}
