import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { GroupCommit } from '../../src/store/group-commit.js'

/** A committer that records its batches and takes `ms` to commit each. */
function recording (ms: number, options: ConstructorParameters<typeof GroupCommit>[1] = {}) {
  const batches: number[][] = []
  const commit = new GroupCommit<number, string>(async (items) => {
    batches.push(items)
    await sleep(ms)
    return items.map((item) => `done ${item}`)
  }, options)
  return { batches, commit }
}

test('with a linger, items that trickle in within it share one batch, and each still gets its own outcome', async () => {
  // A linger far beyond the spacing: timers fire in deadline order, so only a stall of most of it could split the batch.
  const { batches, commit } = recording(1, { lingerMs: 200 })
  const outcomes = [commit.submit(1)]
  await sleep(5)
  outcomes.push(commit.submit(2))
  await sleep(5)
  outcomes.push(commit.submit(3))
  assert.deepEqual(await Promise.all(outcomes), ['done 1', 'done 2', 'done 3'])
  assert.deepEqual(batches, [[1, 2, 3]])
})

test('with a linger, a lone item is committed once it has waited, not left behind', async (t) => {
  // The clock is the test's: the linger is observed, not timed.
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const batches: number[][] = []
  const commit = new GroupCommit<number, string>(async (items) => {
    batches.push(items)
    return items.map((item) => `done ${item}`)
  }, { lingerMs: 20 })
  const outcome = commit.submit(7)
  t.mock.timers.tick(19)
  assert.deepEqual(batches, [], 'it waits for company first')
  t.mock.timers.tick(1)
  assert.equal(await outcome, 'done 7')
  assert.deepEqual(batches, [[7]])
})

test('with a linger, what arrives while a batch commits is the next batch at once, as without one', async () => {
  const { batches, commit } = recording(40, { lingerMs: 10 })
  const first = commit.submit(1)
  await sleep(20) // the first batch is committing now
  const second = commit.submit(2)
  const third = commit.submit(3)
  await Promise.all([first, second, third])
  assert.deepEqual(batches, [[1], [2, 3]])
})
