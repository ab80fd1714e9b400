import { randomFillSync } from 'node:crypto'

let sequence = 0
// Random bytes drawn a few thousand at a time: one draw per id (a UUID cut into pieces, as before) cost
// about three times as much, on the writer thread that commits every event.
const random = Buffer.alloc(4096)
let drawn = random.length
let lastMs = -1
let msHex = ''

/**
 * A Standard Webhooks message id, one per event: `msg_` and 32 hex digits, made of the time in
 * milliseconds (12 digits), a per-process counter (4) and 64 random bits (16). Ids made later sort
 * later, so the outbox's index on them grows at its end: random ids (a UUID) landed all over that
 * index, and once it outgrew the page cache every insert read a page from disk, on the writer thread
 * that commits creates.
 */
export function newMessageId (): string {
  sequence = (sequence + 1) & 0xffff
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    msHex = now.toString(16).padStart(12, '0')
  }
  if (drawn === random.length) {
    randomFillSync(random)
    drawn = 0
  }
  const bits = random.toString('hex', drawn, drawn + 8)
  drawn += 8
  return `msg_${msHex}${sequence.toString(16).padStart(4, '0')}${bits}`
}
