import { createParser } from 'eventsource-parser'
import type { EventSourceMessage } from 'eventsource-parser'

/** An event of `GET /events`: its sequence (resume after it), type and data (ids as bigint). */
export type StoreEvent =
  | { sequence: bigint, type: 'plant.created' | 'plant.updated', data: { id: bigint, name: string, tag?: string } }
  | { sequence: bigint, type: 'plant.deleted', data: { id: bigint } }
  /** A filtered stream's: the plant no longer matches its filter. */
  | { sequence: bigint, type: 'plant.left', data: { id: bigint } }
  /** What was missed is partly gone (retention): re-list from `relist`, then keep reading. */
  | { sequence: undefined, type: 'reset', data: { oldest: bigint, relist: string } }

export interface EventsOptions {
  /** Resume after this sequence (a `Plantstore-Event-Position`, or the last event's); default: from now on. */
  after?: bigint
  types?: Array<'plant.created' | 'plant.updated' | 'plant.deleted' | 'plant.left'>
  /** Only events about plants that match (GET /plants's grammar), and `plant.left` when one stops matching. */
  filter?: string
  /** Ends the iteration. */
  signal?: AbortSignal
  /** Wait this long before reconnecting, whatever the server's `retry:` says. */
  reconnectMs?: number
  /** Told when the stream opens (true) and when it drops and a reconnection is due (false). */
  onConnection?: (connected: boolean) => void
}

/** Failures worth trying again: the network, or a 429/502/503/504. */
const retryable = (status: number) => status === 429 || status >= 502

/**
 * Follows `GET /events` as an async iterator, reconnecting on its own after a drop (waiting what the
 * server's `retry:` says) with `Last-Event-ID`, so every event arrives once, in order. Answers with an
 * error the service gave that retrying cannot cure (401, 403, 400).
 */
export async function * followEvents (
  open: (headers: Record<string, string>, query: string, signal: AbortSignal | undefined) => Promise<Response>,
  parse: (text: string) => unknown,
  refuse: (response: Response) => Promise<never>,
  { after, types, filter, signal, reconnectMs, onConnection }: EventsOptions = {}
): AsyncGenerator<StoreEvent> {
  let last = after
  let retryMs = 2000
  const params = new URLSearchParams()
  if (types !== undefined) params.set('types', types.join(','))
  if (filter !== undefined) params.set('filter', filter)
  const query = params.size === 0 ? '' : `?${params}`
  const aborted = () => signal?.aborted === true
  while (!aborted()) {
    const queue: EventSourceMessage[] = []
    const parser = createParser({ onEvent: (event) => queue.push(event), onRetry: (ms) => { retryMs = ms } })
    try {
      const response = await open(last === undefined ? {} : { 'last-event-id': String(last) }, query, signal)
      if (!response.ok) {
        if (!retryable(response.status)) await refuse(response)
        await response.body?.cancel()
        throw new Error(`status ${response.status}`)
      }
      onConnection?.(true)
      const decoder = new TextDecoder()
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }))
        for (const message of queue.splice(0)) {
          const data = parse(message.data) as Record<string, unknown>
          if (message.event === 'reset') {
            yield { sequence: undefined, type: 'reset', data: { oldest: BigInt(data.oldest as number | bigint), relist: String(data.relist) } }
            continue
          }
          last = BigInt(message.id!)
          yield { sequence: last, type: message.event, data: { ...data, id: BigInt(data.id as number | bigint) } } as StoreEvent
        }
      }
    } catch (error) {
      if (aborted()) return
      if ((error as { name?: string }).name === 'PlantStoreError') throw error
    }
    onConnection?.(false)
    await new Promise((resolve) => setTimeout(resolve, reconnectMs ?? retryMs))
  }
}
