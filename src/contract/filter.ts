import { INT64_MAX, INT64_MIN } from './int64.js'

/** The filter grammar's comparison operators (AIP-160). */
export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>='

/** A parsed filter: the tree each store compiles to SQL, and the feed to a predicate. */
export type Filter =
  | { kind: 'and' | 'or', terms: Filter[] }
  | { kind: 'not', term: Filter }
  | { kind: 'id', op: Operator, value: bigint }
  /** `prefix`: a value ending in `*` after `=` or `!=` (the `*` removed). */
  | { kind: 'name' | 'tag', op: Operator, value: string, prefix: boolean }
  /** `tag:*`: the plant has a tag. */
  | { kind: 'has-tag' }

export const MAX_FILTER_LENGTH = 1024
export const MAX_COMPARISONS = 20

/** A filter that cannot be parsed: the message names what is wrong and where. */
export class FilterError extends Error {
  override name = 'FilterError'
}

type Token =
  | { type: 'word', text: string, at: number }
  | { type: 'string', text: string, at: number }
  | { type: 'integer', text: string, at: number }
  | { type: 'op' | 'punct', text: string, at: number }
  | { type: 'end', text: '', at: number }

const OPERATORS = ['<=', '>=', '!=', '=', '<', '>']
const FIELDS = new Set(['id', 'name', 'tag'])

/** Splits a filter into tokens; `at` is the index in the text. */
function tokenize (text: string, fail: (message: string, at: number) => never): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (/\s/.test(c)) { i++; continue }
    const at = i
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i))
    if (op !== undefined) {
      tokens.push({ type: 'op', text: op, at })
      i += op.length
    } else if (c === '(' || c === ')' || c === ':' || c === '*' || (c === '-' && !/\d/.test(text[i + 1] ?? ''))) {
      tokens.push({ type: 'punct', text: c, at })
      i++
    } else if (c === '"') {
      let value = ''
      for (i++; ; i++) {
        if (i >= text.length) fail('unterminated string', at)
        const d = text[i]!
        if (d === '"') break
        if (d === '\\') {
          const escaped = text[i + 1]
          if (escaped !== '"' && escaped !== '\\') fail(`unknown escape "\\${escaped ?? ''}"; only \\" and \\\\ are escapes`, i)
          value += escaped
          i++
        } else {
          value += d
        }
      }
      i++
      tokens.push({ type: 'string', text: value, at })
    } else if (/[-\d]/.test(c)) {
      const match = /^-?\d+/.exec(text.slice(i))!
      tokens.push({ type: 'integer', text: match[0], at })
      i += match[0].length
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i))!
      tokens.push({ type: 'word', text: match[0], at })
      i += match[0].length
    } else {
      fail(`unexpected ${JSON.stringify(String.fromCodePoint(text.codePointAt(i)!))}`, at)
    }
  }
  tokens.push({ type: 'end', text: '', at: text.length })
  return tokens
}

/**
 * Parses the `filter` parameter (PRODUCT.md, "Finding plants"): comparisons on id, name and tag,
 * `tag:*`, AND, OR (binding tighter than AND, as in AIP-160), NOT or `-`, parentheses. Undefined for an
 * empty filter; throws FilterError naming what is wrong and at which character.
 */
export function parseFilter (text: string): Filter | undefined {
  // Positions are counted in characters (code points), from 1.
  const fail = (message: string, at: number): never => {
    throw new FilterError(`${message} at character ${[...text.slice(0, at)].length + 1}`)
  }
  if ([...text].length > MAX_FILTER_LENGTH) throw new FilterError(`at most ${MAX_FILTER_LENGTH} characters are allowed`)
  const tokens = tokenize(text, fail)
  if (tokens.length === 1) return undefined
  let next = 0
  let comparisons = 0
  const peek = () => tokens[next]!
  const take = () => tokens[next++]!
  const is = (type: Token['type'], text?: string) => peek().type === type && (text === undefined || peek().text === text)
  const shown = (token: Token) => token.type === 'end' ? 'the end' : JSON.stringify(token.text)

  /** Terms of the level below joined by one keyword (AND over OR over the rest, as AIP-160 binds). */
  const joined = (kind: 'and' | 'or', below: () => Filter) => (): Filter => {
    const terms = [below()]
    while (is('word', kind.toUpperCase())) {
      take()
      terms.push(below())
    }
    return terms.length === 1 ? terms[0]! : { kind, terms }
  }
  const disjunction = (): Filter => joined('or', unary)()
  const expression = joined('and', disjunction)
  const unary = (): Filter => {
    if (is('word', 'NOT') || is('punct', '-')) {
      take()
      // NOT NOT x is x (NOT is an exact complement), so that no chain of them nests the SQL deeper
      // than the comparisons do: a thousand was past SQLite's expression depth.
      const term = unary()
      return term.kind === 'not' ? term.term : { kind: 'not', term }
    }
    if (is('punct', '(')) {
      take()
      const inner = expression()
      if (!is('punct', ')')) fail(`expected ")" instead of ${shown(peek())}`, peek().at)
      take()
      return inner
    }
    return comparison()
  }
  const comparison = (): Filter => {
    const field = take()
    if (field.type !== 'word' || ['AND', 'OR', 'NOT'].includes(field.text)) fail(`expected a field (id, name or tag) instead of ${shown(field)}`, field.at)
    if (!FIELDS.has(field.text)) fail(`unknown field ${JSON.stringify(field.text)}; the fields are id, name and tag`, field.at)
    if (++comparisons > MAX_COMPARISONS) fail(`more than ${MAX_COMPARISONS} comparisons`, field.at)
    if (is('punct', ':')) {
      const colon = take()
      if (field.text !== 'tag' || !is('punct', '*')) fail(`expected "*" after "${field.text}:" (only tag:* is supported)`, colon.at + 1)
      take()
      return { kind: 'has-tag' }
    }
    const op = take()
    if (op.type !== 'op') fail(`expected an operator (=, !=, <, <=, >, >=) after "${field.text}" instead of ${shown(op)}`, op.at)
    const value = take()
    if (value.type !== 'string' && value.type !== 'integer') fail(`expected a value after "${op.text}"`, value.at)
    const operator = op.text as Operator
    if (field.text === 'id') {
      if (value.type !== 'integer') fail('id takes an integer, not a string', value.at)
      const id = BigInt(value.text)
      if (id < INT64_MIN || id > INT64_MAX) fail('id is outside the int64 range', value.at)
      return { kind: 'id', op: operator, value: id }
    }
    if (value.type !== 'string') fail(`${field.text} takes a string in double quotes, not a number`, value.at)
    const prefix = (operator === '=' || operator === '!=') && value.text.endsWith('*')
    return { kind: field.text as 'name' | 'tag', op: operator, value: prefix ? value.text.slice(0, -1) : value.text, prefix }
  }

  const tree = expression()
  if (!is('end')) fail(`expected AND, OR or the end instead of ${shown(peek())}`, peek().at)
  return tree
}

/** A filter as JSON (ids as text), for the store that evaluates it in SQL (PostgreSQL's plant_matches). */
export function filterTreeJson (filter: Filter): string {
  const plain = (node: Filter): unknown => {
    switch (node.kind) {
      case 'and':
      case 'or': return { k: node.kind, t: node.terms.map(plain) }
      case 'not': return { k: 'not', t: plain(node.term) }
      case 'has-tag': return { k: 'has-tag' }
      case 'id': return { k: 'id', o: node.op, v: String(node.value) }
      default: return { k: node.kind, o: node.op, v: node.value, p: node.prefix }
    }
  }
  return JSON.stringify(plain(filter))
}
