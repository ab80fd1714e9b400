import { BlockList, isIPv6 } from 'node:net'
import type { Server } from 'node:http'
import type { Config } from '../config/config.js'

/**
 * Caps the connections one client address may hold open, so that one address (idle sockets reopened
 * as the header timeout closes them, or a token's many streams) cannot take every connection the
 * server allows (`server.maxConnections`). A connection from a trusted proxy carries many clients
 * and is not counted: with a hop count every connection may be one, so none is. Past the cap a new
 * connection is closed as it arrives, before it costs anything.
 */
export function limitConnectionsPerAddress (server: Server, perAddress: number, trustProxy: Config['trustProxy']) {
  if (typeof trustProxy === 'number') return
  const proxies = new BlockList()
  for (const proxy of trustProxy === false ? [] : trustProxy) {
    const [address, bits] = proxy.split('/') as [string, string | undefined]
    const type = isIPv6(address) ? 'ipv6' : 'ipv4'
    if (bits === undefined) proxies.addAddress(address, type)
    else proxies.addSubnet(address, Number(bits), type)
  }
  const open = new Map<string, number>()
  server.on('connection', (socket) => {
    const address = socket.remoteAddress
    if (address === undefined) return
    if (proxies.check(address, socket.remoteFamily === 'IPv6' ? 'ipv6' : 'ipv4')) return
    const count = (open.get(address) ?? 0) + 1
    if (count > perAddress) {
      socket.destroy()
      return
    }
    open.set(address, count)
    socket.once('close', () => {
      const left = open.get(address)! - 1
      if (left === 0) open.delete(address)
      else open.set(address, left)
    })
  })
}
