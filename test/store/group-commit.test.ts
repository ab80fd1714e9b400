import assert from 'node:assert/strict'
import { test } from 'node:test'
import { GroupCommit } from '../../src/store/group-commit.js'

test('with a linger, items that trickle in within it share one batch, and each still gets its own outcome', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] })
  const batches: number[][] = []
  const commit = new GroupCommit<number, string>(async (items) => {
    batches.push(items)
    return items.map((item) => `done ${item}`)
  }, { lingerMs: 200 })
  const outcomes = [commit.submit(1)]
  t.mock.timers.tick(5)
  outcomes.push(commit.submit(2))
  t.mock.timers.tick(5)
  outcomes.push(commit.submit(3))
  t.mock.timers.tick(190)
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
  const batches: number[][] = []
  let release = () => {}
  const committing = new Promise<void>((resolve) => { release = resolve })
  const commit = new GroupCommit<number, string>(async (items) => {
    batches.push(items)
    if (batches.length === 1) await committing
    return items.map((item) => `done ${item}`)
  }, { lingerMs: 10 })
  const first = commit.submit(1)
  const deadline = Date.now() + 5000
  while (batches.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(batches, [[1]], 'the first batch is committing now')
  const second = commit.submit(2)
  const third = commit.submit(3)
  release()
  await Promise.all([first, second, third])
  assert.deepEqual(batches, [[1], [2, 3]])
})
