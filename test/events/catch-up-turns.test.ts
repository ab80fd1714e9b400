import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CatchUpTurns } from '../../src/events/catch-up-turns.js'

test('a turn that ends lets work already queued on the event loop run before the next turn starts', async () => {
  const turns = new CatchUpTurns(1)
  const order: string[] = []
  const endFirst = await turns.take('replaying token')
  const second = turns.take('another token').then((end) => { order.push('next turn'); end() })
  setImmediate(() => order.push('queued request'))
  endFirst()
  await second
  assert.deepEqual(order, ['queued request', 'next turn'])
})

test('one turn per key at a time, and at most atOnce in all, in arrival order', async () => {
  const turns = new CatchUpTurns(2)
  const started: string[] = []
  const take = (key: string, label: string) => turns.take(key).then((end) => { started.push(label); return end })
  const a1 = take('a', 'a1')
  const a2 = take('a', 'a2')
  const b1 = take('b', 'b1')
  const c1 = take('c', 'c1')
  const [endA1, endB1] = await Promise.all([a1, b1])
  assert.deepEqual(started, ['a1', 'b1'])
  endA1()
  const endA2 = await a2
  assert.deepEqual(started, ['a1', 'b1', 'a2'])
  endB1()
  const endC1 = await c1
  assert.deepEqual(started, ['a1', 'b1', 'a2', 'c1'])
  endA2()
  endC1()
})
