import type { BenchServer } from './servers.js'

/** One workload: what to seed before, and the requests autocannon sends. */
export interface Scenario {
  name: string
  seed?: (server: BenchServer) => Promise<void>
  requests: () => Array<{ method: string, path: string, body?: string, setupRequest?: (request: any) => any }>
}

const SEEDED = 1000

async function seedPlants (server: BenchServer) {
  // Seeded through the API, a few at a time; ids 1..SEEDED, so every read below hits a plant.
  for (let first = 1; first <= SEEDED; first += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: first + i, name: `Plant ${first + i}`, tag: (first + i) % 2 === 0 ? 'even' : 'odd' })
    }).then((res) => res.arrayBuffer())))
  }
}

// Unique ids across every run of one harness invocation.
let nextId = 10_000_000

export const scenarios: Scenario[] = [
  {
    name: 'create (unique ids)',
    requests: () => [{
      method: 'POST',
      path: '/plants',
      setupRequest: (request) => ({ ...request, body: `{"id":${nextId++},"name":"Monstera","tag":"tropical"}` })
    }]
  },
  {
    name: 'create (identical replay)',
    seed: seedPlants,
    requests: () => [{ method: 'POST', path: '/plants', body: '{"id":2,"name":"Plant 2","tag":"even"}' }]
  },
  {
    name: 'GET /plants/{id}',
    seed: seedPlants,
    requests: () => [{
      method: 'GET',
      path: '/plants/1',
      setupRequest: (request) => ({ ...request, path: `/plants/${1 + Math.floor(Math.random() * SEEDED)}` })
    }]
  },
  {
    name: 'GET /plants?limit=100',
    seed: seedPlants,
    requests: () => [{
      method: 'GET',
      path: '/plants?limit=100',
      setupRequest: (request) => ({ ...request, path: `/plants?limit=100&after=${Math.floor(Math.random() * (SEEDED - 100))}` })
    }]
  }
]
