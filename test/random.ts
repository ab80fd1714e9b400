import type { TestContext } from 'node:test'

/**
 * Random numbers for a test's faults, from a seed the test prints (as a diagnostic) so a failure can be
 * replayed: PLANTSTORE_TEST_SEED=<seed> runs the same faults again. mulberry32: small, and enough for
 * choosing delays.
 */
export function seededRandom (t: TestContext): () => number {
  const given = process.env.PLANTSTORE_TEST_SEED
  const seed = given === undefined ? Math.floor(Math.random() * 2 ** 32) : Number(given) >>> 0
  t.diagnostic(`random faults from seed ${seed} (replay with PLANTSTORE_TEST_SEED=${seed})`)
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32
  }
}
