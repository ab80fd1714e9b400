import { ids } from './ids.js'
import { plantName, seededNumbers } from './plant-names.js'
import { CEILING, PRISM, TRACED } from './servers.js'
import type { BenchServer } from './servers.js'
import { addSubscriber, removeSubscriber } from './subscriber.js'
import type { SubscriberRun } from './subscriber.js'
import { call, openStreams, position, startReaders, untilAtEnd } from './streams.js'
import type { Readers } from './streams.js'

export interface Request { method: string, path: string, body?: string, setupRequest?: (request: any) => any }

/** One workload: what to seed before, the requests autocannon sends, and what to do around the measured run. */
export interface Scenario {
  name: string
  /** Runs only on servers for which this holds (default: every server not `coreOnly`). */
  runsOn?: (server: BenchServer) => boolean
  /** Its ratios to another build are targets: bench/README.md's table shows it (results/bench.md shows all). */
  summarised?: true
  /** The scenario whose ceiling row this one's ratio is taken against (default: its own). */
  ceilingOf?: string
  seed?: (server: BenchServer) => Promise<void>
  requests: () => Request[]
  /** Around the warm-up and measured run; what `after` answers is added to the row. */
  // Each scenario's own run state, opaque to the harness.
  around?: Around<any>
}

interface Around<T> {
  before: (server: BenchServer) => Promise<T>
  measuring: (run: T) => void
  after: (run: T, created: number) => Promise<Record<string, number | null>>
}

const SEEDED = 1000
const REPLAYED = '{"id":1000001,"name":"Replayed","tag":"even"}'

async function postPlant (server: BenchServer, body: string) {
  const res = await fetch(`${server.url}/plants`, { method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body })
  await res.arrayBuffer()
}

async function seedPlants (server: BenchServer) {
  // Seeded through the API, a few at a time; ids 1..SEEDED, so every read below hits a plant.
  for (let first = 1; first <= SEEDED; first += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) =>
      postPlant(server, JSON.stringify({ id: first + i, name: `Plant ${first + i}`, tag: (first + i) % 2 === 0 ? 'even' : 'odd' }))))
  }
}

// By default the name carries the send time, so the webhook receiver can measure the lag from create
// to delivery.
const createRequest = (name = () => `t${Date.now()}`): Request => ({
  method: 'POST',
  path: '/plants',
  setupRequest: (request) => ({ ...request, body: `{"id":${ids.next++},"name":"${name()}","tag":"tropical"}` })
})

// Names as people give them, in no order: each create lands at a random leaf of the name indexes,
// where the clock's names, rising, all land at their right edge. These start with a capital, below
// its lower-case "t", so that they leave that edge to it.
const nextNumber = seededNumbers(1)
const unorderedName = () => plantName(nextNumber, nextNumber() % 1_000_000)

export const CREATE = 'create (unique ids)'
export const STREAMS = 'create, 20 open streams'

interface StreamsRun { readers: Readers, server: BenchServer, before: number }

/** 20 GET /events streams open (readers in a process of their own) through warm-up and measured run. */
async function openTwenty (server: BenchServer): Promise<StreamsRun> {
  const readers = await startReaders()
  await openStreams(readers, server, 20)
  await new Promise((resolve) => setTimeout(resolve, 500))
  return { readers, server, before: await position(server) }
}

/** Every stream must have every event of the run, in order. */
async function closeTwenty (run: StreamsRun) {
  const { stats } = await untilAtEnd(run.readers, await position(run.server), 10_000)
  await call(run.readers, '/close')
  await run.readers.stop()
  return { streamsComplete: stats.atEnd === 20 && stats.minEvents === stats.maxEvents ? 1 : 0, streamOutOfOrder: stats.outOfOrder, streamLagP99Ms: stats.lagP99Ms }
}

export const scenarios: Scenario[] = [
  { name: CREATE, runsOn: () => true, summarised: true, requests: () => [createRequest()] },
  {
    name: 'create (names in no order)',
    runsOn: (server) => server.name !== CEILING && server.name !== TRACED && server.name !== PRISM,
    ceilingOf: CREATE,
    requests: () => [createRequest(unorderedName)]
  },
  {
    name: 'create, one webhook subscriber',
    runsOn: (server) => server.database !== undefined,
    ceilingOf: CREATE,
    requests: () => [createRequest()],
    around: { before: addSubscriber, measuring: (run: SubscriberRun) => { run.firstId = ids.next }, after: (run: SubscriberRun, created: number) => removeSubscriber(run, created, ids.next) }
  },
  {
    name: STREAMS,
    runsOn: (server) => server.database !== undefined,
    ceilingOf: CREATE,
    requests: () => [createRequest()],
    around: { before: openTwenty, measuring: () => {}, after: closeTwenty }
  },
  {
    // A plant of its own: the PUT scenario renames the seeded ones, and a replay of one of those would be a 409.
    name: 'create (identical replay)',
    seed: (server) => postPlant(server, REPLAYED),
    requests: () => [{ method: 'POST', path: '/plants', body: REPLAYED }]
  },
  {
    name: 'GET /plants/{id}',
    runsOn: () => true,
    summarised: true,
    seed: seedPlants,
    requests: () => [{
      method: 'GET',
      path: '/plants/1',
      setupRequest: (request) => ({ ...request, path: `/plants/${1 + Math.floor(Math.random() * SEEDED)}` })
    }]
  },
  {
    // Replaces of seeded plants, spread over them (so that few wait on one row's lock); not on the mock,
    // whose document has no PUT.
    name: 'PUT /plants/{id}',
    runsOn: (server) => server.name !== PRISM,
    seed: seedPlants,
    requests: () => [{
      method: 'PUT',
      path: '/plants/1',
      setupRequest: (request) => ({ ...request, path: `/plants/${1 + Math.floor(Math.random() * SEEDED)}`, body: `{"name":"Replaced ${Math.random()}"}` })
    }]
  },
  {
    name: 'GET /plants?limit=100',
    runsOn: () => true,
    summarised: true,
    seed: seedPlants,
    requests: () => [{
      method: 'GET',
      path: '/plants?limit=100',
      setupRequest: (request) => ({ ...request, path: `/plants?limit=100&after=${Math.floor(Math.random() * (SEEDED - 100))}` })
    }]
  }
]
