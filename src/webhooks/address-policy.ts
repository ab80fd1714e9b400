import { lookup } from 'node:dns'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as lookupAsync } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'
import type { IPv4, IPv6 } from 'ipaddr.js'
import { WebhookUrlRefused } from '../contract/errors.js'

/** What an operator sets to let webhooks reach private and special-purpose addresses. */
export const ALLOW_PRIVATE_HINT = 'an operator may allow such targets with --webhook-allow-private'

// 2000::/3, the only IPv6 block IANA allocates as global unicast; 64:ff9b::/96, NAT64's well-known prefix.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96')

/**
 * The IPv4 address an IPv6 address carries, where it is one of the transition forms a connection
 * ends at that IPv4 host through: mapped and translated (::ffff:a.b.c.d, ::ffff:0:a.b.c.d), compatible
 * (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:AABB:CCDD::) and Teredo (its client, bits inverted).
 */
function embeddedIpv4 (address: IPv6): IPv4 | undefined {
  const p = address.parts
  const v4 = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as IPv4
  switch (address.range()) {
    case 'ipv4Mapped': case 'rfc6145': return v4(p[6]!, p[7]!)
    case 'rfc6052': return address.match(NAT64) ? v4(p[6]!, p[7]!) : undefined
    case '6to4': return v4(p[1]!, p[2]!)
    case 'teredo': return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)
  }
  // Compatible: the first 96 bits zero (:: and ::1 are judged as themselves).
  if (p.slice(0, 6).every((part) => part === 0) && (p[6] !== 0 || p[7]! > 1)) return v4(p[6]!, p[7]!)
  return undefined
}

/**
 * Whether an address is globally routable unicast: not in any of IANA's special-purpose IPv4 and
 * IPv6 ranges (loopback, private, shared, link-local, multicast, broadcast, reserved, documentation,
 * benchmarking, site-local…), an IPv4 address inside an IPv6 one judged as the IPv4 address it is.
 * Anything that is not an address is not public.
 */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as IPv6
  const inner = embeddedIpv4(v6)
  if (inner !== undefined) return inner.range() === 'unicast'
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6)
}

/** A URL's host as an address or name: an IPv6 literal without its brackets. */
export function hostOf (url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

/**
 * Checks a webhook URL an integrator gave (server-side request forgery): http(s) only, and a host
 * that neither is nor resolves to an address that is not public, unless `allowPrivate`. Answers the
 * URL as stored; throws WebhookUrlRefused (400, code 1004) saying why, never what a name resolved to.
 */
export async function checkWebhookUrl (text: string, allowPrivate: boolean): Promise<string> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new WebhookUrlRefused(`${JSON.stringify(text)} is not an absolute URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookUrlRefused(`only http:// and https:// URLs receive webhooks, not ${url.protocol}`)
  // Port 0 is no port: every delivery would fail.
  if (url.port === '0') throw new WebhookUrlRefused('port 0 cannot receive webhooks')
  if (allowPrivate) return url.href
  const host = hostOf(url)
  // One text for every refusal of a host, so that the answer never tells which names exist (a DNS oracle).
  const refused = new WebhookUrlRefused(`${host} is not, or does not resolve to, a public address; ${ALLOW_PRIVATE_HINT}`)
  if (host === 'localhost' || host.endsWith('.localhost')) throw refused
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) throw refused
    return url.href
  }
  let addresses: LookupAddress[]
  try {
    addresses = await lookupAsync(host, { all: true })
  } catch {
    throw refused
  }
  if (addresses.some((entry) => !isPublicAddress(entry.address))) throw refused
  return url.href
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for net.connect that refuses addresses that are not public: every connection to an
 * integrator's subscriber resolves its host again, so a name that came to point inside the network
 * since the subscription was made cannot be reached.
 */
export function publicOnlyLookup (hostname: string, options: LookupOptions, callback: LookupCallback) {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    if (addresses.some((entry) => !isPublicAddress(entry.address))) {
      return callback(Object.assign(new Error(`${hostname} resolves to an address that is not public (${ALLOW_PRIVATE_HINT})`), { code: 'EADDRREFUSED' }), [])
    }
    if (options.all === true) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
