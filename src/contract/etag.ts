import { hash } from 'node:crypto'
import type { Plant } from './plant.js'

/** A strong entity tag of a plant's representation: it changes whenever name or tag does. */
export function etagOf (plant: Plant): string {
  // One-shot hash(): a third of createHash()'s cost on this path, the same digest.
  return `"${hash('sha256', JSON.stringify([String(plant.id), plant.name, plant.tag ?? null]), 'base64url').slice(0, 27)}"`
}

/** A write's preconditions: its If-Match and If-None-Match headers' text. Data, so that it crosses threads. */
export interface Precondition { ifMatch?: string, ifNoneMatch?: string }

/** The precondition header that refused a write, with its text. */
export interface Refusal { header: 'If-Match' | 'If-None-Match', sent: string }

/** A request's preconditions, or undefined when it sends neither header. */
export function preconditionOf (headers: { 'if-match'?: string, 'if-none-match'?: string }): Precondition | undefined {
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = headers
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined
  return { ...(ifMatch !== undefined && { ifMatch }), ...(ifNoneMatch !== undefined && { ifNoneMatch }) }
}

/**
 * RFC 9110 §13.2.2 for a write to a current plant, If-Match first: it needs `*` or one of its tags equal
 * to the plant's by strong comparison (a weak `W/` tag never matches); then If-None-Match refuses `*`
 * or any tag equal by weak comparison. Undefined when the write may go ahead.
 */
export function refusal (precondition: Precondition, plant: Plant): Refusal | undefined {
  const { ifMatch, ifNoneMatch } = precondition
  const etag = etagOf(plant)
  if (ifMatch !== undefined && !ifMatch.split(',').some((tag) => ['*', etag].includes(tag.trim()))) return { header: 'If-Match', sent: ifMatch }
  if (ifNoneMatch !== undefined && noneMatch(ifNoneMatch, etag)) return { header: 'If-None-Match', sent: ifNoneMatch }
  return undefined
}

/** If-None-Match: true when it lists `*` or `etag` (weak comparison): a GET's caller already holds it. */
export function noneMatch (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}
