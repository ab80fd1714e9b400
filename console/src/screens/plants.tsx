import { useEffect, useRef, useState } from 'preact/hooks'
import type { ListQuery, Page, Plant, StoreEvent } from '@plantstore/client'
import { useConsole } from '../context.js'
import { holds } from '../session.js'
import { count, ConfirmButton, TableRegion } from '../ui.js'
import { PlantForm } from './plant-form.js'
import { PlantEditor } from './plant-editor.js'

const PAGE_SIZE = 20

/** An event applied to the page in view: replaced or removed where it is, a new plant placed in id order. */
function applyEvent (plants: Plant[], event: StoreEvent, query: ListQuery, lastPage: boolean): Plant[] {
  if (event.type === 'reset') return plants
  const id = event.data.id
  const without = plants.filter((plant) => plant.id !== id)
  if (event.type === 'plant.deleted') return without
  const plant = event.data as Plant
  if (query.tag !== undefined && plant.tag !== query.tag) return without
  const after = query.after === undefined ? undefined : BigInt(query.after)
  const inRange = (after === undefined || id > after) && (lastPage || (plants.length > 0 && id <= plants.at(-1)!.id))
  if (!plants.some((p) => p.id === id) && !inRange) return plants
  return [...without, plant].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** The page with one event applied to its plants. */
const withEvent = (page: Page, event: StoreEvent, query: ListQuery): Page =>
  ({ ...page, plants: applyEvent(page.plants, event, query, page.next === undefined) })

/** Plants: keyset pages with a tag filter, kept current by the event stream; create, edit and delete. */
export function PlantsScreen () {
  const { client, me, onEvent, fail, announce } = useConsole()
  const [tag, setTag] = useState('')
  const [query, setQuery] = useState<ListQuery>({ limit: PAGE_SIZE })
  const [previous, setPrevious] = useState<ListQuery[]>([])
  const [page, setPage] = useState<Page | null>(null)
  const [editing, setEditing] = useState<bigint | null>(null)
  const canWrite = holds(me, 'plants:write')

  // Events that arrive while a page is loading are kept for it: its answer may predate them, so
  // those after the position it reflects are applied to it again, or it would undo them.
  const loading = useRef(new Set<StoreEvent[]>())
  const load = () => {
    const missed: StoreEvent[] = []
    loading.current.add(missed)
    return client.listPlants(query).then((loaded) => {
      const since = missed.filter((event) => loaded.position === undefined || event.sequence === undefined || event.sequence > loaded.position)
      setPage(since.reduce((page, event) => withEvent(page, event, query), loaded))
    }, fail).finally(() => loading.current.delete(missed))
  }
  useEffect(() => { load() }, [query])
  useEffect(() => onEvent((event) => {
    for (const missed of loading.current) missed.push(event)
    setPage((current) => (current === null ? current : withEvent(current, event, query)))
  }), [query])

  const filter = (event: Event) => {
    event.preventDefault()
    setPrevious([])
    setQuery({ limit: PAGE_SIZE, ...(tag.trim() !== '' && { tag: tag.trim() }) })
  }
  const remove = async (plant: Plant) => {
    try {
      await client.deletePlant(plant.id)
      announce(`Deleted plant ${plant.id}.`)
      await load()
    } catch (error) { fail(error) }
  }

  return (
    <>
      <form role='search' class='row' onSubmit={filter}>
        <label for='tag-filter'>Filter by tag</label>
        <input id='tag-filter' value={tag} onInput={(e) => setTag(e.currentTarget.value)} placeholder='any tag' />
        <button type='submit'>Filter</button>
      </form>
      {canWrite ? <PlantForm onCreated={load} /> : <p class='help'>Creating and changing plants needs <code>plants:write</code>.</p>}
      {editing !== null && <PlantEditor id={editing} onClose={() => { setEditing(null); load() }} />}
      <TableRegion label='Plants'>
        <table>
          <caption>{page === null ? 'Loading plants…' : `${count(page.plants.length, 'plant')} on this page${query.tag === undefined ? '' : ` tagged ${query.tag}`}`}</caption>
          <thead><tr><th scope='col'>ID</th><th scope='col'>Name</th><th scope='col'>Tag</th>{canWrite && <th scope='col'>Actions</th>}</tr></thead>
          <tbody>
            {page?.plants.map((plant) => (
              <tr key={String(plant.id)} data-id={String(plant.id)}>
                <td class='id'>{String(plant.id)}</td>
                <td>{plant.name}</td>
                <td>{plant.tag ?? ''}</td>
                {canWrite && (
                  <td class='actions'>
                    <button type='button' class='secondary' onClick={() => setEditing(plant.id)} aria-label={`Edit plant ${plant.id}`}>Edit</button>
                    <ConfirmButton label='Delete' question={`Delete plant ${plant.id}?`} onConfirm={() => remove(plant)} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      <nav class='pager' aria-label='Pages of plants'>
        <button
          type='button' class='secondary' disabled={previous.length === 0}
          onClick={() => { setQuery(previous.at(-1)!); setPrevious(previous.slice(0, -1)) }}
        >Previous page
        </button>
        <button
          type='button' class='secondary' disabled={page?.next === undefined}
          onClick={() => { setPrevious([...previous, query]); setQuery(page!.next!) }}
        >Next page
        </button>
      </nav>
    </>
  )
}
