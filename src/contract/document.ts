import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

/** Where the contract lives: `openapi/plantstore.yaml` at the package root, from both src/ and dist/. */
export const documentUrl = new URL('../../openapi/plantstore.yaml', import.meta.url)

export type JsonSchema = Record<string, unknown>

export interface Operation {
  operationId: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The path in Fastify's form: `/plants/:id`. */
  url: string
  /** The scope a token needs, from `x-plantstore-scope`; absent for operations without security. */
  scope: string | undefined
  /** Whether a stream ticket (`?ticket=`, security scheme streamTicket) may stand in for the bearer token. */
  acceptsTicket: boolean
  /** The media type its body is sent in (the document's first), when it takes one. */
  contentType: string | undefined
  schema: {
    body?: JsonSchema
    params?: JsonSchema
    querystring?: JsonSchema
    response: Record<string, JsonSchema>
  }
}

interface Parameter { name: string, in: string, required?: boolean, schema: JsonSchema, description?: string }

/** The document as written (with `$ref`s), for serving it. */
export const openapiDocument = parse(readFileSync(documentUrl, 'utf8')) as Record<string, any>

/** Replaces every local `$ref` with the schema it points at, so each route schema stands alone. */
function dereference (node: unknown, root: Record<string, any>): any {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root))
  if (node === null || typeof node !== 'object') return node
  const ref = (node as { $ref?: unknown }).$ref
  if (typeof ref === 'string') {
    const target = ref.replace(/^#\//, '').split('/').reduce<any>((at, key) => at?.[key], root)
    if (target === undefined) throw new Error(`openapi: unresolved $ref ${ref}`)
    return dereference(target, root)
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereference(value, root)]))
}

function objectOf (parameters: Parameter[], where: string): JsonSchema | undefined {
  const chosen = parameters.filter((p) => p.in === where)
  if (chosen.length === 0) return undefined
  return {
    type: 'object',
    properties: Object.fromEntries(chosen.map((p) => [p.name, p.schema])),
    required: chosen.filter((p) => p.required === true).map((p) => p.name)
  }
}

function operationsOf (doc: Record<string, any>): Operation[] {
  const resolved = dereference(doc.paths, doc) as Record<string, Record<string, any>>
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(resolved)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])] as Parameter[]
      const response: Record<string, JsonSchema> = {}
      for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
        const schema = res.content?.['application/json']?.schema
        if (schema !== undefined) response[status] = schema
      }
      const [contentType, media] = Object.entries(op.requestBody?.content ?? {})[0] as [string, { schema?: JsonSchema }] | [] ?? []
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase() as Operation['method'],
        url: path.replace(/\{(\w+)\}/g, ':$1'),
        scope: op['x-plantstore-scope'],
        acceptsTicket: (op.security ?? []).some((requirement: Record<string, unknown>) => 'streamTicket' in requirement),
        contentType,
        schema: {
          body: media?.schema,
          params: objectOf(parameters, 'path'),
          querystring: objectOf(parameters, 'query'),
          response
        }
      })
    }
  }
  return operations
}

export const operations = operationsOf(openapiDocument)

/** The route options of one documented operation: method, url, schemas and the scope it needs. */
export function operation (operationId: string) {
  const found = operations.find((op) => op.operationId === operationId)
  if (found === undefined) throw new Error(`openapi: no operation ${operationId}`)
  const { body, params, querystring, response } = found.schema
  return {
    method: found.method,
    url: found.url,
    config: { scope: found.scope, acceptsTicket: found.acceptsTicket, contentType: found.contentType },
    schema: {
      ...(body && { body }),
      ...(params && { params }),
      ...(querystring && { querystring }),
      response
    }
  }
}
