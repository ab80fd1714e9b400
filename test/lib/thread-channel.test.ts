import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { JobThread } from '../../src/lib/thread-channel.js'

// Doubles each job; asked to close, it takes a while to finish up (as a thread finishing its work would).
const DOUBLER = `
const { parentPort } = require('node:worker_threads')
parentPort.on('message', (message) => {
  if ('close' in message) {
    setTimeout(() => process.exit(0), 200)
    return
  }
  parentPort.postMessage({ seq: message.seq, results: message.jobs.map((job) => job * 2) })
})
`

test('a thread asked to close keeps the process alive until it exits, even once the last answer is in', async () => {
  const thread = new JobThread<number, number>('doubler', () => new Worker(DOUBLER, { eval: true }))
  // The answer comes after the close was asked for: nothing waits any more, yet the exit is still awaited.
  const answer = thread.run([21])
  const exited = thread.close()
  assert.deepEqual(await answer, [42])
  await exited
})

test('an idle thread never keeps the process alive, and the next batch starts one again after close', async () => {
  const thread = new JobThread<number, number>('doubler', () => new Worker(DOUBLER, { eval: true }))
  assert.deepEqual(await thread.run([1, 2]), [2, 4])
  await thread.close()
  assert.deepEqual(await thread.run([3]), [6])
  await thread.close()
})
