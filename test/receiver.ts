import { createServer } from 'node:http'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received { headers: IncomingHttpHeaders, body: string }

/** A webhook receiver on 127.0.0.1 whose answer a test decides per request. */
export interface Receiver {
  url: string
  port: number
  received: Received[]
  close: () => Promise<void>
}

/** A status at once, a status after a delay, a status when the test says (a promise), or no answer at all. */
export type Answer = number | { status: number, afterMs: number } | Promise<number> | 'hang'

export async function startReceiver (
  answer: (request: Received, index: number) => Answer = () => 200, port = 0
): Promise<Receiver> {
  const received: Received[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => { body += chunk })
    req.on('end', () => {
      const request = { headers: req.headers, body }
      received.push(request)
      const status = answer(request, received.length - 1)
      if (status === 'hang') return
      if (typeof status === 'number') res.writeHead(status).end()
      else if (status instanceof Promise) status.then((code) => res.writeHead(code).end(), () => res.destroy())
      else setTimeout(() => res.writeHead(status.status).end(), status.afterMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const actual = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${actual}/hook`,
    port: actual,
    received,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

/** A port nobody listens on now (connection refused), for a receiver that is down. */
export async function freePort (): Promise<number> {
  const receiver = await startReceiver()
  await receiver.close()
  return receiver.port
}

/** Polls until `check` holds; fails after `ms`. */
export async function waitFor (check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition') {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
