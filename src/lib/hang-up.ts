import type { ServerResponse } from 'node:http'

/** Why work is dropped when its client hung up before the answer. */
export class ClientHungUp extends Error {
  override name = 'ClientHungUp'

  constructor () {
    super('the client closed its connection before its answer')
  }
}

/**
 * Calls `then` once if the connection closes before `response` is sent. The response's `close`, not the
 * request's: Fastify's `request.signal` never fires for a request whose body was read.
 */
export function onHangUp (response: ServerResponse, then: () => void) {
  response.once('close', () => {
    if (!response.writableFinished) then()
  })
}

/** A signal that aborts with ClientHungUp when the client hangs up before `response` is sent. */
export function hangUpSignal (response: ServerResponse): AbortSignal {
  const controller = new AbortController()
  onHangUp(response, () => controller.abort(new ClientHungUp()))
  return controller.signal
}
