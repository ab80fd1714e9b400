import assert from 'node:assert/strict'
import { test } from 'node:test'
import { newMessageId } from '../../src/contract/message-id.js'

test('webhook message ids keep their form, are unique, and sort in the order they were made', async () => {
  const ids: string[] = []
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 20_000; i++) ids.push(newMessageId())
    // A later millisecond too, so that the time part is shown to lead.
    const millisecond = Date.now()
    while (Date.now() === millisecond) await new Promise((resolve) => setImmediate(resolve))
  }
  for (const id of ids) assert.match(id, /^msg_[0-9a-f]{32}$/)
  assert.equal(new Set(ids).size, ids.length)
  // In order within a millisecond (the counter) and across them (the time); the counter wraps only
  // after 65,536 ids, more than a process makes in a millisecond.
  const outOfOrder = ids.findIndex((id, i) => i > 0 && id <= ids[i - 1]!)
  assert.equal(outOfOrder, -1, `id ${outOfOrder} sorts before the one made just before it`)
})
