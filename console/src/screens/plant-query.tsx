import { useEffect, useRef, useState } from 'preact/hooks'
import type { ListQuery } from '@plantstore/client'

/** Where a filter error points: `… at character 8` of the filter. */
const placeOf = (message: string) => Number(/at character (\d+)/.exec(message)?.[1] ?? 0)

/**
 * What the Plants list shows: a tag, a filter expression and words searched in names. A filter the
 * service refuses is shown under its box, the box marked invalid and its caret put at the place named.
 */
export function PlantQueryForm ({ onQuery, filterError }: { onQuery: (query: Pick<ListQuery, 'tag' | 'filter' | 'q'>) => void, filterError: string | undefined }) {
  const [tag, setTag] = useState('')
  const [filter, setFilter] = useState('')
  const [q, setQ] = useState('')
  const filterBox = useRef<HTMLInputElement>(null)

  useEffect(() => {
    const box = filterBox.current
    if (filterError === undefined || box === null) return
    // Characters are counted from 1, in code points; the box's selection counts UTF-16 units.
    const at = [...filter].slice(0, Math.max(0, placeOf(filterError) - 1)).join('').length
    box.focus()
    box.setSelectionRange(at, at)
  }, [filterError])

  const submit = (event: Event) => {
    event.preventDefault()
    const trimmed = { tag: tag.trim(), filter: filter.trim(), q: q.trim() }
    onQuery({
      ...(trimmed.tag !== '' && { tag: trimmed.tag }),
      ...(trimmed.filter !== '' && { filter: trimmed.filter }),
      ...(trimmed.q !== '' && { q: trimmed.q })
    })
  }

  return (
    <form role='search' class='query' onSubmit={submit}>
      <div class='row'>
        <label for='tag-filter'>Filter by tag</label>
        <input id='tag-filter' value={tag} onInput={(e) => setTag(e.currentTarget.value)} placeholder='any tag' />
        <label for='name-search'>Search names</label>
        <input id='name-search' value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder='bos fer' />
      </div>
      <div class='row'>
        <label for='plant-filter'>Filter expression</label>
        <input
          id='plant-filter' ref={filterBox} value={filter} class='wide' spellcheck={false}
          onInput={(e) => setFilter(e.currentTarget.value)} placeholder='name = "Mon*" AND NOT tag:*'
          aria-invalid={filterError !== undefined} aria-describedby={filterError === undefined ? 'filter-help' : 'filter-error'}
        />
        <button type='submit'>Filter</button>
      </div>
      {filterError === undefined
        ? <p id='filter-help' class='help'>Compare <code>id</code>, <code>name</code>, <code>tag</code> with = != &lt; &lt;= &gt; &gt;=; <code>"Mon*"</code> is a prefix; <code>tag:*</code>; AND, OR, NOT, parentheses.</p>
        : <p id='filter-error' class='field-error' role='alert'>{filterError}</p>}
    </form>
  )
}
