import assert from 'node:assert/strict'
import { test } from 'node:test'
import { build } from '../helper.js'

test('apps built again in one process share its one stdout log buffer: no exit listener added per app', async (t) => {
  await build(t)
  const listeners = process.listenerCount('exit')
  for (let i = 0; i < 3; i++) await build(t)
  assert.equal(process.listenerCount('exit'), listeners)
})
