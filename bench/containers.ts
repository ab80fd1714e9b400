/**
 * npm run bench:containers [-- --runs N]: the container image, built as test/containers builds it (with
 * podman, on stand-ins for the official base images): the megabytes its layers add to
 * node:24-bookworm-slim, and, N times (5 by default), the time from `podman run` to `GET /readyz`
 * answering 200, on a new volume (the first start: migrations and the first token) and on the volume of
 * the run before. Loopback only. Writes bench/results/containers.md and the table in bench/README.md.
 */
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { median } from './report.js'
import { writeResults } from './results.js'
import { containerRuntimeMissing, podman, podmanOk, startService, stream } from '../test/containers/podman.js'
import { buildStandIns } from '../test/containers/stand-ins.js'

const { values: flags } = parseArgs({ options: { runs: { type: 'string' } } })
const runs = Number(flags.runs ?? 5)
const ROOT = fileURLToPath(new URL('../', import.meta.url))
const IMAGE = 'localhost/plantstore:bench'
const NAME = `plantstore-bench-${process.pid}`

const missing = await containerRuntimeMissing()
if (missing !== undefined) throw new Error(`containers cannot run here: ${missing}`)
await buildStandIns((line) => process.stderr.write(`${line}\n`))
await stream('podman', ['build', '--pull=never', '--network', 'host', '--format', 'docker', '--tag', IMAGE, ROOT])
const [image, base] = (await podmanOk(['image', 'inspect', '--format', '{{.Size}}', IMAGE, 'docker.io/library/node:24-bookworm-slim'])).trim().split('\n').map(Number)

/** Milliseconds from `podman run` to /readyz answering 200 on `volume`; the container is removed after. */
async function startToReady (volume: string): Promise<number> {
  const started = performance.now()
  try {
    await startService(NAME, IMAGE, volume)
    return performance.now() - started
  } finally {
    await podman(['rm', '--force', '--time', '10', NAME])
  }
}

const fresh: number[] = []
const existing: number[] = []
try {
  for (let run = 0; run < runs; run++) {
    const volume = `${NAME}-${run}`
    fresh.push(await startToReady(volume))
    existing.push(await startToReady(volume))
    await podman(['volume', 'rm', '--force', volume])
    process.stderr.write(`run ${run + 1}: ${fresh.at(-1)!.toFixed(0)} ms on a new volume, ${existing.at(-1)!.toFixed(0)} ms on the same\n`)
  }
} finally {
  await podman(['rm', '--force', '--time', '0', NAME])
  for (let run = 0; run < runs; run++) await podman(['volume', 'rm', '--force', `${NAME}-${run}`])
  await podman(['rmi', IMAGE])
}

const seconds = (list: number[]) => `${(median(list) / 1000).toFixed(2)} s (max ${(Math.max(...list) / 1000).toFixed(2)})`
const markdown = `Median of ${runs} runs, a new volume and the same alternated.\n\n| figure | target | result |\n|---|---|---|\n` +
  `| the layers the image adds to node:24-bookworm-slim | ≤ 100 MB | ${((image! - base!) / 1e6).toFixed(1)} MB |\n` +
  `| podman run to /readyz answering, a new volume (first start) | ≤ 3 s | ${seconds(fresh)} |\n` +
  `| podman run to /readyz answering, the volume of the run before | ≤ 3 s | ${seconds(existing)} |\n`
writeResults('containers', markdown)
console.log(markdown)
