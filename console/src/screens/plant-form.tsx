import { useState } from 'preact/hooks'
import { useConsole } from '../context.js'

const INT64 = /^-?\d{1,19}$/

/** Creates a plant; the id is read as text and sent digit for digit (an id above 2^53 stays exact). */
export function PlantForm ({ onCreated }: { onCreated: () => void }) {
  const { client, fail, announce } = useConsole()
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  const [tag, setTag] = useState('')

  const submit = async (event: Event) => {
    event.preventDefault()
    if (!INT64.test(id.trim())) return announce('The id must be a whole number (int64).')
    try {
      const plant = await client.createPlant({ id: BigInt(id.trim()), name, ...(tag !== '' && { tag }) })
      announce(`Created plant ${plant.id}.`)
      setId(''); setName(''); setTag('')
      onCreated()
    } catch (error) { fail(error) }
  }

  return (
    <form class='card' onSubmit={submit} aria-labelledby='new-plant'>
      <h2 id='new-plant'>New plant</h2>
      <div class='fields'>
        <label>ID <input name='id' inputMode='numeric' required value={id} onInput={(e) => setId(e.currentTarget.value)} /></label>
        <label>Name <input name='name' required maxLength={256} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>Tag <input name='tag' maxLength={64} value={tag} onInput={(e) => setTag(e.currentTarget.value)} /></label>
      </div>
      <button type='submit'>Create plant</button>
    </form>
  )
}
