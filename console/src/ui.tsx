import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

/** A table that scrolls sideways on a narrow screen, reachable by keyboard as a region. */
export function TableRegion ({ label, children }: { label: string, children: ComponentChildren }) {
  return <div class='table-region' role='region' aria-label={label} tabIndex={0}>{children}</div>
}

/** A destructive action asked twice: the first press asks, the second acts. */
export function ConfirmButton ({ label, question, onConfirm }: { label: string, question: string, onConfirm: () => Promise<void> | void }) {
  const [asking, setAsking] = useState(false)
  if (!asking) return <button type='button' class='danger' onClick={() => setAsking(true)}>{label}</button>
  return (
    <span class='confirm' role='group' aria-label={question}>
      <span>{question}</span>
      <button type='button' class='danger' autoFocus onClick={async () => { setAsking(false); await onConfirm() }}>Yes, {label.toLowerCase()}</button>
      <button type='button' class='secondary' onClick={() => setAsking(false)}>Cancel</button>
    </span>
  )
}

/** A secret shown once, with a copy button; it is never shown again. */
export function SecretOnce ({ label, value, onDone }: { label: string, value: string, onDone: () => void }) {
  const [copied, setCopied] = useState(false)
  return (
    <section class='secret' aria-label={label}>
      <p><strong>{label}</strong>: shown this once. Copy it now.</p>
      <code class='secret-value' data-testid='secret'>{value}</code>
      <div class='actions'>
        <button type='button' onClick={async () => { await navigator.clipboard.writeText(value); setCopied(true) }}>Copy</button>
        <button type='button' class='secondary' onClick={onDone}>Done</button>
        <span role='status'>{copied ? 'Copied.' : ''}</span>
      </div>
    </section>
  )
}

/** `1 plant`, `2 plants`: a count with its noun, singular or plural. */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

export const when = (iso: string | null | undefined) => (iso === null || iso === undefined ? '—' : new Date(iso).toLocaleString())
