import { parse as parseLossless } from 'lossless-json'
import { InvalidJson } from './errors.js'

// Integers of up to 15 digits are below 2^53, where a double is exact; only longer digit runs need the
// slower lossless parser, so the common body takes the native JSON.parse path.
const LONG_DIGIT_RUN = /\d{16}/

/**
 * Parses JSON text so that no integer loses a digit: integers outside ±2^53 come back as `bigint`,
 * everything else as JSON.parse would give it (duplicate keys: the last one wins, as in JSON.parse).
 * Throws SyntaxError on invalid JSON.
 */
export function parseExactJson (text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text)
  return parseLossless(text, null, {
    parseNumber: parseExactNumber,
    onDuplicateKey: ({ newValue }) => newValue
  })
}

const INTEGER_LITERAL = /^-?\d+$/

function parseExactNumber (literal: string): number | bigint {
  const approx = Number(literal)
  if (Number.isSafeInteger(approx) || !INTEGER_LITERAL.test(literal)) return approx
  return BigInt(literal)
}

/** A JSON body (of any JSON media type) parsed exactly; no text is no body. */
export function parseJsonBody (_request: unknown, text: string | Buffer, done: (error: Error | null, body?: unknown) => void) {
  if (text === '') return done(null, undefined)
  try {
    done(null, parseExactJson(text as string))
  } catch (error) {
    done(new InvalidJson((error as Error).message), undefined)
  }
}
