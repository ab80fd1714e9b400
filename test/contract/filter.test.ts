import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FilterError, parseFilter } from '../../src/contract/filter.js'
import { compareCodePoints, matches } from '../../src/contract/filter-match.js'
import type { Plant } from '../../src/contract/plant.js'
import { seededRandom } from '../random.js'

const refused = (text: string, message: string) =>
  assert.throws(() => parseFilter(text), (error: unknown) => error instanceof FilterError && error.message === message, text)

test('comparisons, prefixes, tag:*, NOT, - and parentheses parse to the tree the stores compile', () => {
  assert.equal(parseFilter(''), undefined)
  assert.equal(parseFilter('   '), undefined)
  assert.deepEqual(parseFilter('id >= -9223372036854775808'), { kind: 'id', op: '>=', value: -9223372036854775808n })
  assert.deepEqual(parseFilter('name = "Mon*"'), { kind: 'name', op: '=', value: 'Mon', prefix: true })
  assert.deepEqual(parseFilter('name < "Mon*"'), { kind: 'name', op: '<', value: 'Mon*', prefix: false }, 'a * is a prefix only after = or !=')
  assert.deepEqual(parseFilter('tag != "a*b"'), { kind: 'tag', op: '!=', value: 'a*b', prefix: false }, 'a * inside is literal')
  assert.deepEqual(parseFilter('name = "say \\"hi\\" \\\\ *"'), { kind: 'name', op: '=', value: 'say "hi" \\ ', prefix: true })
  assert.deepEqual(parseFilter('NOT tag:*'), { kind: 'not', term: { kind: 'has-tag' } })
  assert.deepEqual(parseFilter('-(id=1)'), { kind: 'not', term: { kind: 'id', op: '=', value: 1n } })
})

test('OR binds tighter than AND, as in AIP-160', () => {
  assert.deepEqual(parseFilter('id = 1 AND id = 2 OR id = 3'), {
    kind: 'and',
    terms: [{ kind: 'id', op: '=', value: 1n }, { kind: 'or', terms: [{ kind: 'id', op: '=', value: 2n }, { kind: 'id', op: '=', value: 3n }] }]
  })
})

test('each error names what is wrong and at which character', () => {
  refused('name =', 'expected a value after "=" at character 7')
  refused('name = AND', 'expected a value after "=" at character 8')
  refused('colour = "red"', 'unknown field "colour"; the fields are id, name and tag at character 1')
  refused('id = "1"', 'id takes an integer, not a string at character 6')
  refused('name = 5', 'name takes a string in double quotes, not a number at character 8')
  refused('id = 9223372036854775808', 'id is outside the int64 range at character 6')
  refused('name "x"', 'expected an operator (=, !=, <, <=, >, >=) after "name" instead of "x" at character 6')
  refused('name = "x', 'unterminated string at character 8')
  refused('name = "\\n"', 'unknown escape "\\n"; only \\" and \\\\ are escapes at character 9')
  refused('(id = 1', 'expected ")" instead of the end at character 8')
  refused('id = 1 id = 2', 'expected AND, OR or the end instead of "id" at character 8')
  refused('name:*', 'expected "*" after "name:" (only tag:* is supported) at character 6')
  refused('AND id = 1', 'expected a field (id, name or tag) instead of "AND" at character 1')
  refused('🌿 = "x"', 'unexpected "🌿" at character 1')
  refused('name = "🌿" AND ?', 'unexpected "?" at character 16')
  refused('x'.repeat(1025), 'at most 1024 characters are allowed')
  const many = Array.from({ length: 21 }, (_, i) => `id = ${i}`).join(' OR ')
  refused(many, `more than 20 comparisons at character ${many.indexOf('id = 20') + 1}`)
})

test('the rules: a missing tag compares false, NOT is an exact complement, strings by code point', () => {
  const plants: Plant[] = [{ id: 1n, name: 'Monstera', tag: 'x' }, { id: 2n, name: 'Fern' }, { id: 3n, name: '\u{1F33F}', tag: 'y' }, { id: 4n, name: '\uFFFD' }]
  const ids = (text: string) => plants.filter((plant) => matches(parseFilter(text)!, plant)).map((plant) => Number(plant.id))
  assert.deepEqual(ids('tag != "x"'), [3])
  assert.deepEqual(ids('NOT tag = "x"'), [2, 3, 4])
  assert.deepEqual(ids('tag:*'), [1, 3])
  assert.deepEqual(ids('name > "\uFFFD"'), [3], 'U+1F33F sorts after U+FFFD by code point (not by UTF-16 unit)')
  assert.deepEqual(ids('name = "Mon*" OR id = 2'), [1, 2])
  assert.deepEqual(ids('name != "Mon*"'), [2, 3, 4])
})

test('strings compare as their UTF-8 bytes do, astral characters above U+E000–U+FFFF', (t) => {
  const random = seededRandom(t)
  // From each range where UTF-16 and code point order differ or agree: ASCII, below the surrogates, above them, astral.
  const ranges = [[0x20, 0x7F], [0x80, 0xD7FF], [0xE000, 0xFFFF], [0x10000, 0x10FFFF]] as const
  const character = () => {
    const [low, high] = ranges[Math.floor(random() * ranges.length)]!
    return String.fromCodePoint(low + Math.floor(random() * (high - low + 1)))
  }
  const text = () => Array.from({ length: Math.floor(random() * 4) }, character).join('')
  for (let i = 0; i < 20_000; i++) {
    const a = text()
    const b = random() < 0.3 ? a + text() : text()
    assert.equal(Math.sign(compareCodePoints(a, b)), Buffer.compare(Buffer.from(a), Buffer.from(b)), JSON.stringify([a, b]))
  }
})
