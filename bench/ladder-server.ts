/**
 * The cost ladder: the same GET /plants/{id} and POST /plants served by the bare framework, then with
 * each layer of Plant Store added in turn, so that each layer's cost is one row of the benchmark.
 * `tsx bench/ladder-server.ts <rung> <database> <token> --port <port>`; the top rung is `plantstore
 * serve` itself (see servers.ts).
 *   fastify   Fastify, the routes with a schema, a constant answer
 *   auth      + the bearer check against an in-memory map of token hashes (SHA-256)
 *   store     + the real store: tokens and plants in SQLite (reads, durable group-committed creates)
 *   contract  + the document's validation (exact int64 JSON, Ajv) and response serialisation, our errors
 * The plugins (request ids, access log, metrics, security headers, load shedding, docs) are what
 * `plantstore serve` adds on top.
 */
import Fastify from 'fastify'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseDatabaseUrl } from '../src/config/config.js'
import { operation } from '../src/contract/document.js'
import { MissingCredentials, InvalidToken, NotFound, PlantConflict } from '../src/contract/errors.js'
import contract from '../src/http/contract.js'
import errorHandler from '../src/http/error-handler.js'
import { openStore } from '../src/store/open-store.js'
import type { Plant } from '../src/store/store.js'
import { hashToken, readCredentials } from '../src/auth/tokens.js'
import { RUNGS } from './ladder-rungs.js'

type Rung = typeof RUNGS[number]

const [rungArg, databaseArg, token] = process.argv.slice(2)
const rung = rungArg as Rung
const port = Number(process.argv[process.argv.indexOf('--port') + 1])
const level = RUNGS.indexOf(rung)
if (level === -1 || databaseArg === undefined || token === undefined) throw new Error(`usage: ladder-server <${RUNGS.join('|')}> <database> <token> --port <port>`)

const store = level >= RUNGS.indexOf('store') ? await openStore(parseDatabaseUrl(databaseArg)) : undefined
const knownHashes = new Set([hashToken(token).toString('hex')])
const app = Fastify({ logger: false })

if (level >= RUNGS.indexOf('contract')) {
  await app.register(errorHandler)
  await app.register(contract, { bodyLimit: 65536 })
}

if (level >= RUNGS.indexOf('auth')) {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.url === '/healthz') return
    const credentials = readCredentials(request.headers.authorization)
    if (credentials.kind !== 'bearer') throw new MissingCredentials()
    const hash = hashToken(credentials.token)
    const known = store === undefined ? knownHashes.has(hash.toString('hex')) : (await store.tokens.findByHash(hash)) !== undefined
    if (!known) throw new InvalidToken()
  })
}

const constant = { id: 1n, name: 'Fern' }
// Below the contract rung, the routes declare a plain schema and answer plain JSON.
const plainParams = { type: 'object', properties: { id: { type: 'string', pattern: '^-?\\d{1,19}$' } }, required: ['id'] }
const plainBody = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } }, required: ['id', 'name'] }
const withContract = level >= RUNGS.indexOf('contract')

app.route({
  ...(withContract ? operation('getPlant') : { method: 'GET' as const, url: '/plants/:id', schema: { params: plainParams } }),
  handler: async (request: FastifyRequest, reply: FastifyReply) => {
    const id = BigInt((request.params as { id: bigint | string }).id)
    const plant = store === undefined ? constant : (await store.plants.get(id)).plant
    if (plant === undefined) throw new NotFound(`plant ${id} not found`)
    return withContract ? plant : reply.type('application/json').send(`{"id":${plant.id},"name":${JSON.stringify(plant.name)}}`)
  }
})

app.route({
  ...(withContract ? operation('createPlant') : { method: 'POST' as const, url: '/plants', schema: { body: plainBody } }),
  handler: async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as { id: bigint | number, name: string, tag?: string }
    const plant: Plant = { id: BigInt(body.id), name: body.name, ...(body.tag !== undefined && { tag: body.tag }) }
    if (store !== undefined) {
      const outcome = await store.plants.create(plant)
      if (outcome.kind === 'conflict') throw new PlantConflict(String(plant.id))
    }
    return withContract ? plant : reply.type('application/json').send(`{"id":${plant.id},"name":${JSON.stringify(plant.name)}}`)
  }
})

app.get('/healthz', async () => ({ status: 'ok' }))
await app.listen({ host: '127.0.0.1', port })
process.on('SIGTERM', () => { app.close().then(() => store?.close()).then(() => process.exit(0), () => process.exit(1)) })
