const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** Parses a lifetime such as `30d`, `12h`, `90m`, `45s` or `2w` into milliseconds. */
export function parseDuration (text: string): number | undefined {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim())
  if (match === null) return undefined
  const amount = Number(match[1])
  return amount > 0 ? amount * UNITS[match[2]!]! : undefined
}
