// The thread that parses an import's lines (import-parser-thread.ts), each chunk in turn: the parser
// keeps the line a chunk leaves unfinished for the next one.
import { LineParser } from './import-lines.js'
import type { ParsedLines } from './import-lines.js'

const parser = new LineParser()

/** The lines `chunk` completes; without a chunk, the last line of the input. */
export default function parse ({ chunk }: { chunk?: string }): ParsedLines {
  return chunk === undefined ? parser.end() : parser.push(chunk)
}
