import { useEffect, useState } from 'preact/hooks'
import type { Plant } from '@plantstore/client'
import { useConsole } from '../context.js'
import { statusOf } from '../session.js'

interface Loaded { plant: Plant, etag: string }

/**
 * Edits one plant with a merge patch of what the person changed, under If-Match: when someone changed
 * it meanwhile (412), the current version is shown beside the person's, who chooses to overwrite it
 * (both fields) or keep it.
 */
export function PlantEditor ({ id, onClose }: { id: bigint, onClose: () => void }) {
  const { client, fail, announce } = useConsole()
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [name, setName] = useState('')
  const [tag, setTag] = useState('')
  const [conflict, setConflict] = useState<Loaded | null>(null)

  useEffect(() => {
    announce('')
    client.getPlant(id).then((current) => { setLoaded(current); setName(current.plant.name); setTag(current.plant.tag ?? '') }, fail)
  }, [id])

  const save = async (etag: string, overwrite = false) => {
    const wanted = { name, tag: tag === '' ? null : tag }
    const patch = overwrite || loaded === null
      ? wanted
      : { ...(name !== loaded.plant.name && { name }), ...(wanted.tag !== (loaded.plant.tag ?? null) && { tag: wanted.tag }) }
    try {
      await client.patchPlant(id, patch, { ifMatch: etag })
      announce(`Saved plant ${id}.`)
      onClose()
    } catch (error) {
      if (statusOf(error) !== 412) return fail(error)
      announce('')
      setConflict(await client.getPlant(id))
    }
  }

  if (loaded === null) return <p role='status'>Loading plant {String(id)}…</p>
  return (
    <form class='card' aria-labelledby='edit-plant' onSubmit={(e) => { e.preventDefault(); save(loaded.etag) }}>
      <h2 id='edit-plant'>Edit plant {String(id)}</h2>
      <div class='fields'>
        <label>Name <input name='edit-name' required maxLength={256} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>Tag <input name='edit-tag' maxLength={64} value={tag} onInput={(e) => setTag(e.currentTarget.value)} /></label>
      </div>
      {conflict === null
        ? <div class='actions'><button type='submit'>Save</button><button type='button' class='secondary' onClick={onClose}>Cancel</button></div>
        : (
          <div class='conflict' role='alert'>
            <p>Someone changed this plant since you opened it. It is now: <strong>{conflict.plant.name}</strong>{conflict.plant.tag !== undefined && ` (tag ${conflict.plant.tag})`}.</p>
            <div class='actions'>
              <button type='button' onClick={() => save(conflict.etag, true)}>Overwrite with mine</button>
              <button type='button' class='secondary' onClick={() => { announce(`Kept the current version of plant ${id}.`); onClose() }}>Keep theirs</button>
            </div>
          </div>
          )}
    </form>
  )
}
