import { lookup } from 'node:dns'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as lookupAsync } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { WebhookUrlRefused } from '../errors.js'

// Where a webhook must not point unless the operator allows it: loopback, private, link-local and
// unspecified addresses, IPv4 and IPv6 (BlockList matches IPv4-mapped IPv6 such as ::ffff:127.0.0.1 too).
const PRIVATE = new BlockList()
for (const [network, bits] of [['0.0.0.0', 8], ['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16]] as const) {
  PRIVATE.addSubnet(network, bits, 'ipv4')
}
for (const [network, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) PRIVATE.addSubnet(network, bits, 'ipv6')

/** Whether an IP address is loopback, private, link-local or unspecified (anything that is not an address too). */
export function isPrivateAddress (address: string): boolean {
  const version = isIP(address)
  return version === 0 || PRIVATE.check(address, version === 4 ? 'ipv4' : 'ipv6')
}

/** A URL's host as an address or name: an IPv6 literal without its brackets. */
export function hostOf (url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

/**
 * Checks a webhook URL an integrator gave (server-side request forgery): http(s) only, and a host
 * that neither is nor resolves to a private address, unless `allowPrivate`. Answers the URL as
 * stored; throws WebhookUrlRefused (400, code 1004) saying why.
 */
export async function checkWebhookUrl (text: string, allowPrivate: boolean): Promise<string> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new WebhookUrlRefused(`${JSON.stringify(text)} is not an absolute URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlRefused(`only http:// and https:// URLs receive webhooks, not ${url.protocol}`)
  if (allowPrivate) return url.href
  const host = hostOf(url)
  if (host === 'localhost' || host.endsWith('.localhost')) throw new WebhookUrlRefused(`${host} is a loopback host`)
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) throw new WebhookUrlRefused(`${host} is a loopback, private, link-local or unspecified address`)
    return url.href
  }
  let addresses: LookupAddress[]
  try {
    addresses = await lookupAsync(host, { all: true })
  } catch {
    throw new WebhookUrlRefused(`${host} does not resolve`)
  }
  const refused = addresses.find((entry) => isPrivateAddress(entry.address))
  if (refused !== undefined) throw new WebhookUrlRefused(`${host} resolves to ${refused.address}, a loopback, private, link-local or unspecified address`)
  return url.href
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for net.connect that refuses private addresses: every connection to an integrator's
 * subscriber resolves its host again and connects only to a public address, so a name that came to
 * point inside the network since the subscription was made cannot be reached.
 */
export function publicOnlyLookup (hostname: string, options: LookupOptions, callback: LookupCallback) {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    const refused = addresses.find((entry) => isPrivateAddress(entry.address))
    if (refused !== undefined) {
      return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private address`), { code: 'EADDRREFUSED' }), [])
    }
    if (options.all === true) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
