import { isUtf8 } from 'node:buffer'
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
  try {
    return parseLossless(text, null, {
      parseNumber: parseExactNumber,
      onDuplicateKey: ({ newValue }) => newValue
    })
  } catch (error) {
    // The lossless parser recurses: a deep nest of arrays runs out of stack, which is no syntax error to report as such.
    if (error instanceof RangeError) throw new SyntaxError('it is nested too deeply')
    throw error
  }
}

const INTEGER_LITERAL = /^-?\d+$/

function parseExactNumber (literal: string): number | bigint {
  const approx = Number(literal)
  if (Number.isSafeInteger(approx) || !INTEGER_LITERAL.test(literal)) return approx
  return BigInt(literal)
}

/**
 * Where the first byte that is not UTF-8 lies: the first U+FFFD that decoding made rather than read.
 * The byte offset is carried from one U+FFFD to the next, so a body of many real ones costs one pass.
 */
export function firstNonUtf8Byte (bytes: Buffer): number {
  const text = bytes.toString('utf8')
  let offset = 0
  let from = 0
  for (let index = text.indexOf('\uFFFD'); index !== -1; index = text.indexOf('\uFFFD', index + 1)) {
    offset += Buffer.byteLength(text.slice(from, index))
    from = index
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset
  }
  return -1
}

/** Whether the bytes start with a UTF-8 byte order mark, which RFC 8259 lets a parser ignore. */
export function startsWithBom (bytes: Buffer): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

/**
 * A JSON body (of any JSON media type) parsed exactly; no bytes is no body. JSON is UTF-8 (RFC 8259):
 * other bytes are refused, not decoded to U+FFFD and stored. A leading byte order mark is ignored.
 */
export function parseJsonBody (_request: unknown, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) {
  const bytes = body as Buffer
  if (bytes.length === 0) return done(null, undefined)
  if (!isUtf8(bytes)) return done(new InvalidJson(`it is not UTF-8 (at byte ${firstNonUtf8Byte(bytes) + 1})`), undefined)
  try {
    done(null, parseExactJson(bytes.toString('utf8', startsWithBom(bytes) ? 3 : 0)))
  } catch (error) {
    done(new InvalidJson((error as Error).message), undefined)
  }
}
