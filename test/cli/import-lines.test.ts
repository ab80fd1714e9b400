import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { LineParser } from '../../src/cli/import-lines.js'

describe('an import\'s line parser', () => {
  test('lines split anywhere across chunks, CRLF ends and a last line without a newline are read whole', () => {
    const parser = new LineParser()
    const text = '{"id":9223372036854775807,"name":"max"}\r\n{"id":-1,"name":"minus one","tag":"t"}\n{"id":2,"name":"two"}'
    const parsed = [...text.match(/.{1,7}/gs)!].map((chunk) => parser.push(chunk))
    parsed.push(parser.end())
    assert.deepEqual(parsed.flatMap((part) => part.plants), [
      { id: 9223372036854775807n, name: 'max' },
      { id: -1n, name: 'minus one', tag: 't' },
      { id: 2n, name: 'two' }
    ])
    assert.deepEqual(parsed.filter((part) => part.plants.length > 0).map((part) => part.first), [1, 2, 3], 'each part names the line of its first plant')
    assert.equal(parsed.at(-1)!.lines, 3)
    assert.ok(parsed.every((part) => part.error === undefined))
  })

  test('the first bad line stops it: the plants before it come back, nothing after it is read', () => {
    const parser = new LineParser()
    const first = parser.push('{"id":1,"name":"one"}\n{"id":2}\n{"id":3,"name":"three"}\n')
    assert.deepEqual(first, { first: 1, plants: [{ id: 1n, name: 'one' }], lines: 2, error: 'line 2: body/name is required' })
    assert.deepEqual(parser.push('{"id":4,"name":"four"}\n'), { first: 3, plants: [], lines: 2 })
    assert.deepEqual(parser.end(), { first: 3, plants: [], lines: 2 })
  })

  test('a blank line and bad JSON are errors with their line numbers; trailing blank space at the end is not', () => {
    assert.equal(new LineParser().push('{"id":1,"name":"one"}\n\n{"id":3,"name":"three"}\n').error, 'line 2: empty line')
    assert.match(new LineParser().push('{"id":1,"name":"one"}\n{"id":2,"name":\n').error!, /^line 2: body is not valid JSON: /)
    const parser = new LineParser()
    assert.equal(parser.push('{"id":1,"name":"one"}\n').plants.length, 1)
    assert.deepEqual(parser.end(), { first: 2, plants: [], lines: 1 })
    const spaces = new LineParser()
    spaces.push('{"id":1,"name":"one"}\n  ')
    assert.deepEqual(spaces.end(), { first: 2, plants: [], lines: 1 })
  })
})
