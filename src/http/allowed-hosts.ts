import { isIP } from 'node:net'
import fp from 'fastify-plugin'
import { MisdirectedRequest } from '../contract/errors.js'

/** Whether `address` (a listening host) is a loopback address or name. */
export function isLoopback (address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host)
}

/** The name part of a Host header (without its port), lower case. */
function hostName (header: string): string {
  const bracketed = /^\[([^\]]*)\]/.exec(header)
  if (bracketed !== null) return bracketed[1]!.toLowerCase()
  const colon = header.indexOf(':')
  return (colon === -1 ? header : header.slice(0, colon)).toLowerCase()
}

/**
 * On a server bound to loopback, only loopback names and `--public-url`'s host are answered (as Vite's
 * `allowedHosts`): a web page on a name rebound to 127.0.0.1 reaches the port, but its requests carry
 * its own name in `Host`, and get 421 instead of, say, the unauthenticated /metrics.
 */
export default fp<{ listenHost: string, publicUrl: string | undefined }>(async (app, { listenHost, publicUrl }) => {
  if (!isLoopback(listenHost)) return
  const ownName = publicUrl === undefined ? undefined : new URL(publicUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase()
  // Clients send the same Host on every request: the last one allowed is not parsed again.
  let allowed: string | undefined
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.host
    // HTTP/1.0 without a Host names no other site.
    if (header === undefined || header === allowed) return done()
    const name = hostName(header)
    if (!isLoopback(name) && name !== ownName) return done(new MisdirectedRequest(header))
    allowed = header
    done()
  })
}, { name: 'allowed-hosts', dependencies: ['error-handler'] })
