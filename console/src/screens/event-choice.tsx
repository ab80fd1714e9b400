const TYPES = ['plant.created', 'plant.updated', 'plant.deleted', 'webhook.disabled'] as const

/** A throttle as typed: empty is none; anything but a number goes as typed, for the service to refuse with its reason. */
export const throttleOf = (text: string): number | null => {
  const typed = text.trim()
  if (typed === '') return null
  return (/^\d+$/.test(typed) ? Number(typed) : typed) as number
}

/** Which events a subscription receives: none chosen keeps the original newPlant body on creates. */
export function EventChoice ({ value, onChange }: { value: string[] | null, onChange: (events: string[] | null) => void }) {
  const chosen = new Set(value ?? [])
  const toggle = (type: string) => {
    if (!chosen.delete(type)) chosen.add(type)
    onChange(chosen.size === 0 ? null : TYPES.filter((t) => chosen.has(t)))
  }
  return (
    <fieldset class='row'>
      <legend>Events (none: the newPlant body on every create)</legend>
      {TYPES.map((type) => (
        <label key={type} class='check'><input type='checkbox' checked={chosen.has(type)} onChange={() => toggle(type)} /> {type}</label>
      ))}
    </fieldset>
  )
}
