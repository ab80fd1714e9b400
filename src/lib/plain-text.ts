// C0 and C1 controls, bidirectional overrides and isolates, zero-width characters: what can redraw a
// terminal, reverse a line or hide in a name.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'gu')

/** The first character that has no place in a name, and its 1-based place; undefined when there is none. */
export function firstUnprintable (text: string): { codePoint: string, at: number } | undefined {
  const match = UNPRINTABLE.exec(text)
  if (match === null) return undefined
  return { codePoint: `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, at: match.index + 1 }
}

/** The text with each such character written as `\u{…}`, for a terminal. */
export function escapeUnprintable (text: string): string {
  return text.replace(UNPRINTABLE_ALL, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`)
}

/** JSON text with each such character inside its strings as a `\uXXXX` escape (JSON.stringify leaves some). */
export function escapeUnprintableJson (json: string): string {
  return json.replace(UNPRINTABLE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
