import { useEffect, useRef, useState } from 'preact/hooks'
import type { StoreEvent } from '@plantstore/client'
import type { ScreenProps } from '../app.js'

const TYPES = ['plant.created', 'plant.updated', 'plant.deleted'] as const

const describeEvent = (event: StoreEvent) => (event.type === 'reset'
  ? `Events before ${event.data.oldest} are no longer kept: lists were reloaded`
  // As the API sent it: an id is a number with every digit, not a string (JSON.rawJSON writes it as is).
  : JSON.stringify(event.data, (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(`${value}`) : value)))

const rawJson = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON

/**
 * The store's events as they happen, newest at the bottom. Hovering or focusing the feed pauses it, so
 * a line can be read; what arrived meanwhile appears when the pointer or focus leaves.
 */
export function LiveScreen ({ events }: ScreenProps) {
  const [types, setTypes] = useState<Set<string>>(new Set(TYPES))
  const [paused, setPaused] = useState(false)
  const [shown, setShown] = useState(events)
  const feed = useRef<HTMLOListElement>(null)

  useEffect(() => { if (!paused) setShown(events) }, [events, paused])
  useEffect(() => { feed.current?.lastElementChild?.scrollIntoView({ block: 'nearest' }) }, [shown])

  const toggle = (type: string) => {
    const next = new Set(types)
    if (!next.delete(type)) next.add(type)
    setTypes(next)
  }
  const visible = shown.filter((event) => event.type === 'reset' || types.has(event.type))
  const waiting = events.length - shown.length

  return (
    <>
      <fieldset class='row'>
        <legend>Show</legend>
        {TYPES.map((type) => (
          <label key={type} class='check'><input type='checkbox' checked={types.has(type)} onChange={() => toggle(type)} /> {type}</label>
        ))}
      </fieldset>
      <p class='help' role='status'>{paused ? `Paused while you read${waiting > 0 ? `: ${waiting} new` : ''}.` : 'Following the store live. Hover or focus the feed to pause it.'}</p>
      <ol
        class='feed' ref={feed} tabIndex={0} aria-label='Events'
        onMouseEnter={() => setPaused(true)} onMouseLeave={() => setPaused(false)}
        onFocus={() => setPaused(true)} onBlur={() => setPaused(false)}
      >
        {visible.length === 0 && <li class='empty'>No events yet: create, replace or delete a plant.</li>}
        {visible.map((event, index) => (
          <li key={event.sequence === undefined ? `reset-${index}` : String(event.sequence)} class={`event ${event.type.replace('.', '-')}`}>
            <span class='sequence'>{event.sequence === undefined ? '—' : `#${event.sequence}`}</span>
            <span class='type'>{event.type}</span>
            <code>{describeEvent(event)}</code>
          </li>
        ))}
      </ol>
    </>
  )
}
