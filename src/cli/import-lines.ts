import { operation } from '../contract/document.js'
import { parseExactJson } from '../contract/exact-json.js'
import { plantOfBody } from '../contract/plant.js'
import type { Plant } from '../contract/plant.js'
import { createBodyValidator } from '../contract/validators.js'

/** The plants of a run of whole lines; `error` names the first bad line, after which nothing is read. */
export interface ParsedLines {
  /** The line number of plants[0]. */
  first: number
  plants: Plant[]
  /** Lines read so far, the bad one included. */
  lines: number
  error?: string
}

/**
 * An import file's lines as plants, chunk by chunk (a line may span chunks): each line validated as a
 * create body by the API's own validator and int64 parsing. CRLF line ends are taken; a blank line
 * is an error, but not trailing blank space at the end of the file.
 */
export class LineParser {
  readonly #validate = createBodyValidator(operation('createPlant').schema.body!)
  #rest = ''
  #lines = 0
  #failed = false

  /** The complete lines that `chunk` ends, with what the chunks before it left over. */
  push (chunk: string): ParsedLines {
    const lines = (this.#rest + chunk).split('\n')
    this.#rest = lines.pop()!
    return this.#parse(lines)
  }

  /** The last line, when the input does not end with a newline. */
  end (): ParsedLines {
    const rest = this.#rest
    this.#rest = ''
    return this.#parse(rest.trim() === '' ? [] : [rest])
  }

  #parse (lines: string[]): ParsedLines {
    const first = this.#lines + 1
    const plants: Plant[] = []
    if (this.#failed) return { first, plants, lines: this.#lines }
    for (const line of lines) {
      this.#lines++
      try {
        plants.push(this.#plant(line.endsWith('\r') ? line.slice(0, -1) : line))
      } catch (error) {
        this.#failed = true
        return { first, plants, lines: this.#lines, error: `line ${this.#lines}: ${(error as Error).message}` }
      }
    }
    return { first, plants, lines: this.#lines }
  }

  #plant (text: string): Plant {
    if (text.trim() === '') throw new Error('empty line')
    let value: unknown
    try {
      value = parseExactJson(text)
    } catch (error) {
      throw new Error(`body is not valid JSON: ${(error as Error).message}`)
    }
    const problem = this.#validate(value)
    if (problem !== undefined) throw new Error(problem)
    const body = value as { id: bigint, name: string, tag?: string }
    return plantOfBody(body.id, body)
  }
}
