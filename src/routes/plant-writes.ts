import type { FastifyInstance } from 'fastify'
import { operation } from '../contract/document.js'
import { preconditionOf } from '../contract/etag.js'
import { SchemaMismatch } from '../contract/errors.js'
import { parseJsonBody } from '../contract/exact-json.js'
import { patchOf, plantOperation } from './batch-operations.js'
import type { SentOperation } from './batch-operations.js'
import { FairQueue } from '../lib/fair-queue.js'
import { hangUpSignal } from '../lib/hang-up.js'
import { idempotencyKey, KeyedWrites } from './idempotency.js'

export interface PlantWriteSettings {
  batchBodyLimit: number
  idempotencyRetentionMs: number
  /** Runs the writes (shared with the keyed DELETE of routes/plants.ts, so one key is one request at a time). */
  writes: KeyedWrites
}

/** PATCH /plants/{id} (JSON Merge Patch) and POST /batch: writes through the store's write requests. */
export default async function plantWriteRoutes (app: FastifyInstance, settings: PlantWriteSettings) {
  const { writes, idempotencyRetentionMs } = settings

  // Batches take turns by token: one token's pile of them never holds up everyone
  // else's writes, which join the store's write queue behind a few batches at most.
  const batches = new FairQueue(app.store.dialect.batchWriters)
  const batch = operation('batchWrite')
  app.route({
    ...batch,
    config: { ...batch.config, requestsWorth: (body) => (body as { operations: unknown[] }).operations.length },
    bodyLimit: settings.batchBodyLimit,
    handler: async (request, reply) => {
      const key = idempotencyKey(request, idempotencyRetentionMs)
      const sent = (request.body as { operations: SentOperation[] }).operations
      const operations = sent.map(plantOperation)
      return batches.run(request.principal!.key, () => writes.send({ operations, answer: 'batch', ...(key !== undefined && { key }) }, reply), hangUpSignal(reply.raw))
    }
  })

  // PATCH takes application/merge-patch+json only: the parser lives in this context of its own, so
  // application/json is 415 here (naming the type to send) and merge-patch is 415 everywhere else.
  await app.register(async (patchContext) => {
    patchContext.removeAllContentTypeParsers()
    patchContext.addContentTypeParser('application/merge-patch+json', { parseAs: 'buffer' }, parseJsonBody)
    patchContext.route({
      ...operation('patchPlant'),
      handler: async (request, reply) => {
        const { id } = request.params as { id: bigint }
        const body = request.body as Record<string, unknown>
        if (body.id !== undefined && body.id !== id) throw new SchemaMismatch(`body/id ${String(body.id)} must equal the id in the path, ${id}`)
        const key = idempotencyKey(request, idempotencyRetentionMs)
        const precondition = preconditionOf(request.headers)
        const patch = { op: 'patch' as const, id, patch: patchOf(body), ...(precondition !== undefined && { precondition }) }
        return writes.send({ operations: [patch], answer: 'single', ...(key !== undefined && { key }) }, reply)
      }
    })
  })
}
