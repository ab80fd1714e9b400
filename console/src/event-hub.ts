import { useEffect, useRef, useState } from 'preact/hooks'
import type { PlantStoreClient, StoreEvent } from '@plantstore/client'

/** How many events the Live screen keeps; older ones scroll away. */
const KEEP = 500

/**
 * One stream of the store's events for the whole console, from sign-in on: the client resumes after
 * a drop with Last-Event-ID, so nothing is missed; `connected` drives the banner while it is down.
 */
export function useEventHub (client: PlantStoreClient, allowed: boolean, fail: (error: unknown) => void) {
  const [connected, setConnected] = useState(true)
  const [events, setEvents] = useState<StoreEvent[]>([])
  const listeners = useRef(new Set<(event: StoreEvent) => void>())

  useEffect(() => {
    if (!allowed) return
    const stop = new AbortController()
    const follow = async () => {
      try {
        for await (const event of client.events({ signal: stop.signal, onConnection: setConnected })) {
          setEvents((kept) => [...kept.slice(-(KEEP - 1)), event])
          for (const listener of listeners.current) listener(event)
        }
      } catch (error) {
        if (!stop.signal.aborted) fail(error)
      }
    }
    follow().catch(fail)
    return () => stop.abort()
  }, [client, allowed])

  const subscribe = (listener: (event: StoreEvent) => void) => {
    listeners.current.add(listener)
    return () => { listeners.current.delete(listener) }
  }
  return { connected, events, subscribe }
}
