import { useEffect, useRef, useState } from 'preact/hooks'
import { filterErrorOf } from '../session.js'
import type { StoreEvent } from '@plantstore/client'
import { useConsole } from '../context.js'
import type { ScreenProps } from '../app.js'

const TYPES = ['plant.created', 'plant.updated', 'plant.deleted'] as const

const describeEvent = (event: StoreEvent) => (event.type === 'reset'
  ? `Events before ${event.data.oldest} are no longer kept: lists were reloaded`
  // As the API sent it: an id is a number with every digit, not a string (JSON.rawJSON writes it as is).
  : JSON.stringify(event.data, (_key, value: unknown) => (typeof value === 'bigint' ? rawJson(`${value}`) : value)))

const rawJson = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON

/**
 * The store's events as they happen, newest at the bottom. Hovering or focusing the feed pauses it, so
 * a line can be read; what arrived meanwhile appears when the pointer or focus leaves. With a filter,
 * a stream of its own: the events of plants that match, and plant.left when one stops matching.
 */
export function LiveScreen ({ events: all }: ScreenProps) {
  const { client, fail } = useConsole()
  const [filter, setFilter] = useState('')
  const [following, setFollowing] = useState<string | undefined>()
  const [filterError, setFilterError] = useState<string | undefined>()
  const [filtered, setFiltered] = useState<StoreEvent[]>([])
  const events = following === undefined ? all : filtered
  useEffect(() => {
    if (following === undefined) return
    const stop = new AbortController()
    setFiltered([])
    setFilterError(undefined)
    const follow = async () => {
      for await (const event of client.events({ filter: following, signal: stop.signal })) setFiltered((kept) => [...kept.slice(-499), event])
    }
    follow().catch((error: unknown) => {
      if (stop.signal.aborted) return
      const refused = filterErrorOf(error)
      if (refused !== undefined) setFilterError(refused)
      else fail(error)
    })
    return () => stop.abort()
  }, [following])
  const [types, setTypes] = useState<Set<string>>(new Set([...TYPES, 'plant.left']))
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
      <form
        role='search' class='row' onSubmit={(e) => { e.preventDefault(); setFollowing(filter.trim() === '' ? undefined : filter.trim()) }}
      >
        <label for='live-filter'>Only plants matching</label>
        <input
          id='live-filter' class='wide' value={filter} spellcheck={false} placeholder='tag = "tropical"'
          onInput={(e) => setFilter(e.currentTarget.value)} aria-invalid={filterError !== undefined}
          aria-describedby={filterError === undefined ? undefined : 'live-filter-error'}
        />
        <button type='submit'>Follow</button>
      </form>
      {filterError !== undefined && <p id='live-filter-error' class='field-error' role='alert'>{filterError}</p>}
      <fieldset class='row'>
        <legend>Show</legend>
        {[...TYPES, ...(following === undefined ? [] : ['plant.left'])].map((type) => (
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
