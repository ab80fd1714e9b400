import { useEffect, useRef, useState } from 'preact/hooks'
import type { ListQuery, Page, Plant, StoreEvent } from '@plantstore/client'
import { useConsole } from '../context.js'
import { filterErrorOf, holds } from '../session.js'
import { PlantQueryForm } from './plant-query.js'
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

/** A list in id order with at most a tag: events are applied where they belong; any other is read again. */
const appliesInPlace = (query: ListQuery) => query.filter === undefined && query.q === undefined && (query.orderBy ?? 'id') === 'id'

/**
 * Plants: keyset pages with a tag, a filter, a search and an order, with the count of all that match,
 * kept current by the event stream; create, edit and delete.
 */
export function PlantsScreen () {
  const { client, me, onEvent, fail, announce } = useConsole()
  const [query, setQuery] = useState<ListQuery>({ limit: PAGE_SIZE, count: 'exact' })
  const [filterError, setFilterError] = useState<string | undefined>()
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
      setFilterError(undefined)
      const since = missed.filter((event) => loaded.position === undefined || event.sequence === undefined || event.sequence > loaded.position)
      setPage(appliesInPlace(query) ? since.reduce((page, event) => withEvent(page, event, query), loaded) : loaded)
    }, (error: unknown) => {
      // A filter the service refused is shown at its place, not as the screen's error.
      const refused = filterErrorOf(error)
      if (refused !== undefined) setFilterError(refused)
      else fail(error)
    }).finally(() => loading.current.delete(missed))
  }
  useEffect(() => { load() }, [query])
  const reload = useRef<ReturnType<typeof setTimeout>>()
  useEffect(() => onEvent((event) => {
    for (const missed of loading.current) missed.push(event)
    if (appliesInPlace(query)) setPage((current) => (current === null ? current : withEvent(current, event, query)))
    else {
      // Where a changed plant now belongs (its filter, its place in the order) is the service's to say.
      clearTimeout(reload.current)
      reload.current = setTimeout(() => { load() }, 100)
    }
  }), [query])

  const filter = (chosen: Pick<ListQuery, 'tag' | 'filter' | 'q'>) => {
    setPrevious([])
    setQuery({ limit: PAGE_SIZE, count: 'exact', ...chosen, ...(query.orderBy !== undefined && { orderBy: query.orderBy }) })
  }
  const sortBy = (column: 'id' | 'name') => {
    const current = query.orderBy ?? 'id'
    const orderBy = current === column ? `${column} desc` as const : column
    setPrevious([])
    setQuery({ limit: PAGE_SIZE, count: 'exact', tag: query.tag, filter: query.filter, q: query.q, orderBy })
  }
  const sortOf = (column: 'id' | 'name') => {
    const current = query.orderBy ?? 'id'
    return current === column ? 'ascending' : current === `${column} desc` ? 'descending' : 'none'
  }
  const header = (column: 'id' | 'name', label: string) => (
    <th scope='col' aria-sort={sortOf(column)}>
      <button type='button' class='sort' onClick={() => sortBy(column)}>{label}{sortOf(column) === 'ascending' ? ' ▲' : sortOf(column) === 'descending' ? ' ▼' : ''}</button>
    </th>
  )
  const remove = async (plant: Plant) => {
    try {
      await client.deletePlant(plant.id)
      announce(`Deleted plant ${plant.id}.`)
      await load()
    } catch (error) { fail(error) }
  }

  return (
    <>
      <PlantQueryForm onQuery={filter} filterError={filterError} />
      {canWrite ? <PlantForm onCreated={load} /> : <p class='help'>Creating and changing plants needs <code>plants:write</code>.</p>}
      {editing !== null && <PlantEditor id={editing} onClose={() => { setEditing(null); load() }} />}
      <TableRegion label='Plants'>
        <table>
          <caption>{page === null ? 'Loading plants…' : `${count(page.plants.length, 'plant')} on this page${query.tag === undefined ? '' : ` tagged ${query.tag}`}${page.total === undefined ? '' : ` · ${count(page.total, 'plant')} ${page.total === 1 ? 'matches' : 'match'}`}`}</caption>
          <thead><tr>{header('id', 'ID')}{header('name', 'Name')}<th scope='col'>Tag</th>{canWrite && <th scope='col'>Actions</th>}</tr></thead>
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
