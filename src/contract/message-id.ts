import { randomUUID } from 'node:crypto'

let sequence = 0

/**
 * A Standard Webhooks message id, one per event: `msg_` and 32 hex digits, made of the time in
 * milliseconds (12 digits), a per-process counter (4) and 64 random bits (16). Ids made later sort
 * later, so the outbox's index on them grows at its end: random ids (a UUID) landed all over that
 * index, and once it outgrew the page cache every insert read a page from disk, on the writer thread
 * that commits creates.
 */
export function newMessageId (): string {
  sequence = (sequence + 1) & 0xffff
  // A UUID's random hex digits (its dashes and its version and variant digits left out): 64 bits.
  const random = randomUUID()
  return `msg_${Date.now().toString(16).padStart(12, '0')}${sequence.toString(16).padStart(4, '0')}` +
    `${random.slice(0, 8)}${random.slice(9, 13)}${random.slice(15, 18)}${random.slice(20, 21)}`
}
