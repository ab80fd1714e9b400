import { createParser } from 'eventsource-parser'

/** One event as a test reads it off the wire. */
export interface WireEvent { id: string | undefined, event: string | undefined, data: string }

/**
 * A raw `GET /events` reader (fetch and the SSE parser, none of the typed client's resuming), to
 * check the wire format itself: it collects every event until closed.
 */
export async function openStream (url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const events: WireEvent[] = []
  let raw = ''
  let retry: number | undefined
  let ended = false
  const parser = createParser({ onEvent: (event) => events.push({ id: event.id, event: event.event, data: event.data }), onRetry: (ms) => { retry = ms } })
  const done = (async () => {
    if (!response.ok || response.body === null) return
    const decoder = new TextDecoder()
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true })
        raw += text
        parser.feed(text)
      }
    } catch {}
    ended = true
  })()
  return {
    response,
    events,
    get raw () { return raw },
    get retry () { return retry },
    get ended () { return ended },
    /** Waits until `check` holds of the events (or fails after `ms`). */
    async until (check: (events: WireEvent[]) => boolean, ms = 5000) {
      const deadline = Date.now() + ms
      while (!check(events)) {
        if (Date.now() > deadline) throw new Error(`stream: condition not met within ${ms} ms; got ${events.length} events (status ${response.status})`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    async close () {
      controller.abort()
      await done
    },
    done
  }
}

/** The ids of plant events, as numbers in order. */
export const sequences = (events: WireEvent[]) => events.filter((event) => event.id !== undefined).map((event) => Number(event.id))
