import Ajv2020 from 'ajv/dist/2020.js'
import type { DataValidationCxt, ErrorObject, ValidateFunction } from 'ajv/dist/types/index.js'
import type { FastifySchemaCompiler } from 'fastify'
import type { JsonSchema } from './document.js'
import { INT64_MAX, INT64_MIN } from './int64.js'
import { firstUnprintable } from '../lib/plain-text.js'

const Ajv = Ajv2020.default

const DIGITS = /^-?\d{1,19}$/

/**
 * The id's exact value, or undefined when `value` is not an int64. Accepts numbers (bodies), bigints
 * (bodies with long integers, see exact-json.ts) and decimal strings (path and query parameters).
 */
export function toInt64 (value: unknown): bigint | undefined {
  let exact: bigint
  if (typeof value === 'bigint') exact = value
  else if (typeof value === 'number' && Number.isSafeInteger(value)) exact = BigInt(value)
  else if (typeof value === 'string' && DIGITS.test(value)) exact = BigInt(value)
  else return undefined
  return exact >= INT64_MIN && exact <= INT64_MAX ? exact : undefined
}

// Ajv knows neither bigint nor int64; this keyword checks the range exactly and leaves the value as a
// bigint, so handlers only ever see exact ids. Bodies must hold a JSON number; parameters are text.
// Ajv's own minimum and maximum check numbers only, so the node's bounds are checked here, as bigints
// made once when the schema is compiled.
function int64Keyword (acceptText: boolean) {
  return ({ minimum, maximum }: Int64Bounds) => {
    const least = minimum === undefined ? undefined : BigInt(Math.ceil(minimum))
    const most = maximum === undefined ? undefined : BigInt(Math.floor(maximum))
    /** Ajv's words for what is wrong with the value, or undefined when nothing is. */
    const wrong = (exact: bigint | undefined): string | undefined => {
      if (exact === undefined) return 'must be an int64 integer'
      if (least !== undefined && exact < least) return `must be >= ${minimum}`
      if (most !== undefined && exact > most) return `must be <= ${maximum}`
      return undefined
    }
    const validate = (data: unknown, cxt?: DataValidationCxt): boolean => {
      const exact = typeof data === 'string' && !acceptText ? undefined : toInt64(data)
      const outside = wrong(exact)
      if (outside !== undefined) {
        validate.errors = [{ keyword: 'x-int64', message: outside, params: {} }]
        return false
      }
      if (cxt !== undefined) (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = exact
      return true
    }
    validate.errors = [] as Partial<ErrorObject>[]
    return validate
  }
}

/** An int64 node's bounds, as the document gives them. */
interface Int64Bounds { minimum?: number, maximum?: number }

// A lone surrogate ("\ud800") is valid JSON but not Unicode: stored, it would come back as U+FFFD, so
// what was answered would not be what was stored. U+0000 is Unicode, but PostgreSQL's text cannot hold
// it: refused on both stores, so that a store's contents can always be copied to the other (by
// `x-plain-text`, with the other controls, on the strings that have it).
function unicodeValidator () {
  const validate = (schema: { plainText: boolean }, data: unknown): boolean => {
    if (typeof data !== 'string') return true
    const nulAt = schema.plainText ? -1 : data.indexOf('\u0000')
    const message = !data.isWellFormed() ? 'must be valid Unicode' : nulAt >= 0 ? `must not contain U+0000 (at character ${[...data.slice(0, nulAt)].length + 1})` : undefined
    if (message === undefined) return true
    validate.errors = [{ keyword: 'x-unicode', message, params: {} }]
    return false
  }
  validate.errors = [] as Partial<ErrorObject>[]
  return validate
}

// `x-plain-text`: names an operator reads in a terminal or the console (token names, webhook
// descriptions) refuse control, bidirectional-override and zero-width characters.
function plainTextValidator () {
  const validate = (_schema: unknown, data: unknown): boolean => {
    const found = typeof data === 'string' ? firstUnprintable(data) : undefined
    if (found === undefined) return true
    validate.errors = [{ keyword: 'x-plain-text', message: `must not contain control, bidirectional or zero-width characters (${found.codePoint} at character ${found.at})`, params: {} }]
    return false
  }
  validate.errors = [] as Partial<ErrorObject>[]
  return validate
}

/** An RFC 3339 date-time's fields, checked as a calendar would: no February 30, no hour 24. */
function isRealDateTime (text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/.exec(text)
  if (match === null) return false
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const offsetOk = match[9] === undefined || (Number(match[10]) <= 23 && Number(match[11]) <= 59)
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk
}

/**
 * The document's `type: integer, format: int64` nodes become the exact keyword above, and its string
 * nodes ask for well-formed Unicode without U+0000.
 */
function withExactInt64 (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withExactInt64)
  if (schema === null || typeof schema !== 'object') return schema
  const node = schema as JsonSchema
  if (node.type === 'integer' && node.format === 'int64') {
    const { type, format, minimum, maximum, ...rest } = node
    return { ...rest, 'x-int64': { minimum, maximum } }
  }
  const typed = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withExactInt64(value)]))
  const isString = node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'))
  return isString ? { ...typed, 'x-unicode': { plainText: 'x-plain-text' in node } } : typed
}

/** An RFC 3339 date-time with its zone, and a real date (as a recovery's `since` must be, over HTTP and in the CLI). */
export function isDateTime (text: string): boolean {
  return isRealDateTime(text) && !Number.isNaN(Date.parse(text))
}

function createAjv (coerceTypes: boolean) {
  // verbose: an error carries its schema, for `x-pattern-message`. validateSchema off: the schemas are
  // the document's, which the OpenAPI linters check (npm run lint:openapi), and checking them again
  // against the meta-schema at each start compiled that meta-schema first, in every process.
  const ajv = new Ajv({ coerceTypes, allErrors: false, strict: false, useDefaults: true, verbose: true, validateSchema: false })
  ajv.addKeyword({ keyword: 'x-int64', modifying: true, errors: true, compile: int64Keyword(coerceTypes) })
  ajv.addKeyword({ keyword: 'x-unicode', errors: true, validate: unicodeValidator() })
  ajv.addKeyword({ keyword: 'x-plain-text', errors: true, validate: plainTextValidator() })
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 })
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime })
  // Webhook URLs are checked by their route, which can say why one is refused (code 1004).
  ajv.addFormat('uri', true)
  return ajv
}

/**
 * Compiles with `ajv`, once per schema: the routes' schemas are the document's, the same objects for
 * every app a process builds (each test builds many), and Ajv would otherwise compile and keep a copy
 * each time.
 */
function compilerOf (ajv: ReturnType<typeof createAjv>) {
  const compiled = new WeakMap<object, ValidateFunction>()
  return (schema: JsonSchema): ValidateFunction => {
    let validate = compiled.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(withExactInt64(schema) as JsonSchema)
      compiled.set(schema, validate)
    }
    return validate
  }
}

// Bodies are JSON and must match as sent ("7" is not 7); path and query parameters arrive as text,
// so only they are coerced.
const compileBody = compilerOf(createAjv(false))
const compileParameters = compilerOf(createAjv(true))

export const validatorCompiler: FastifySchemaCompiler<JsonSchema> = ({ schema, httpPart }) =>
  httpPart === 'body' ? compileBody(schema) : compileParameters(schema)

export interface AjvError { keyword: string, instancePath: string, message?: string, params: Record<string, unknown>, parentSchema?: Record<string, unknown> }

/** `body/id must be an int64 integer`, `body/name is required`, `query/limit must be <= 1000`. */
export function describeSchemaErrors (errors: readonly AjvError[], context: string): string {
  const first = errors[0]
  if (first === undefined) return `${context} does not match the schema`
  if (first.keyword === 'required') return `${context}${first.instancePath}/${String(first.params.missingProperty)} is required`
  const patternMessage = first.keyword === 'pattern' ? first.parentSchema?.['x-pattern-message'] : undefined
  if (typeof patternMessage === 'string') return `${context}${first.instancePath} ${patternMessage}`
  if (first.keyword === 'enum') {
    const allowed = (first.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')
    return `${context}${first.instancePath} must be one of ${allowed}`
  }
  return `${context}${first.instancePath} ${first.message ?? 'does not match the schema'}`
}

/**
 * A create body's validator outside HTTP (`plantstore import`): the same schema, int64 keyword and
 * messages as POST /plants. Answers undefined when the value is a valid NewPlant (its id then a
 * bigint), else the message.
 */
export function createBodyValidator (schema: JsonSchema): (value: unknown) => string | undefined {
  const validate = compileBody(schema) as ((value: unknown) => boolean) & { errors?: AjvError[] | null }
  return (value) => (validate(value) ? undefined : describeSchemaErrors(validate.errors ?? [], 'body'))
}
