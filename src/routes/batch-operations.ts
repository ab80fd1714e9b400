import { operation } from '../contract/document.js'
import { SchemaMismatch } from '../contract/errors.js'
import { plantOfBody } from '../contract/plant.js'
import type { PlantPatch } from '../contract/plant-patch.js'
import { createBodyValidator, toInt64 } from '../contract/validators.js'
import type { PlantOperation } from '../store/store.js'

/** An operation of POST /batch as sent (its shape checked by the document's BatchOperation). */
export interface SentOperation { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, ifMatch?: string }

// Each body checked by the schema of the operation alone, with the same int64 keyword and messages.
const bodyOf = (operationId: string) => createBodyValidator(operation(operationId).schema.body!)
const validators = { POST: bodyOf('createPlant'), PUT: bodyOf('replacePlant'), PATCH: bodyOf('patchPlant') }
const PLANT_PATH = /^\/plants\/(-?\d{1,19})$/

/** The path's plant id, or a 400 naming the operation's place. */
function pathId (sent: SentOperation, place: string): bigint {
  const id = toInt64(PLANT_PATH.exec(sent.path)?.[1])
  if (id === undefined) throw new SchemaMismatch(`${place}: path must be /plants/{id} with an int64 id for ${sent.method}`)
  return id
}

/** The body, checked as the request alone would be: a 400 naming the operation's place when it does not match. */
function checkedBody (sent: SentOperation, place: string): Record<string, unknown> {
  if (sent.method === 'DELETE') return {}
  if (sent.body === undefined) throw new SchemaMismatch(`${place}: body is required`)
  const wrong = validators[sent.method](sent.body)
  if (wrong !== undefined) throw new SchemaMismatch(`${place}: ${wrong}`)
  return sent.body as Record<string, unknown>
}

/**
 * A sent operation as the store applies it, validated as the same request alone (the same schemas and
 * messages, prefixed with `operations/<i>`): refused before the store, so nothing runs.
 */
export function plantOperation (sent: SentOperation, index: number): PlantOperation {
  const place = `operations/${index}`
  const body = checkedBody(sent, place)
  const precondition = sent.ifMatch === undefined ? {} : { precondition: { ifMatch: sent.ifMatch } }
  if (sent.method === 'POST') {
    if (sent.path !== '/plants') throw new SchemaMismatch(`${place}: path must be /plants for POST`)
    if (sent.ifMatch !== undefined) throw new SchemaMismatch(`${place}: ifMatch applies to PUT, PATCH and DELETE`)
    return { op: 'create', plant: plantOfBody(body.id as bigint, body as { name: string, tag?: string }) }
  }
  const id = pathId(sent, place)
  if (body.id !== undefined && body.id !== id) throw new SchemaMismatch(`${place}: body/id ${String(body.id)} must equal the id in the path, ${id}`)
  if (sent.method === 'DELETE') return { op: 'delete', id, ...precondition }
  if (sent.method === 'PUT') return { op: 'replace', plant: plantOfBody(id, body as { name: string, tag?: string }), ...precondition }
  return { op: 'patch', id, patch: patchOf(body), ...precondition }
}

/** A validated merge patch's members that change a plant (unknown ones are ignored). */
export function patchOf (body: Record<string, unknown>): PlantPatch {
  return {
    ...(typeof body.name === 'string' && { name: body.name }),
    ...(body.tag !== undefined && { tag: body.tag as string | null })
  }
}
