// The SQLite writer thread: runs create batches on its own connection, so that the fsync of each
// commit blocks this thread, not the event loop that serves requests.
import { parentPort, workerData } from 'node:worker_threads'
import { connect, createBatchRunner } from './sqlite-connection.js'
import type { SqliteSynchronous } from './sqlite-connection.js'
import type { Plant } from './store.js'

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
const db = connect(path, synchronous)
const runBatch = createBatchRunner(db)

parentPort!.on('message', (message: { seq: number, plants?: Plant[], close?: true }) => {
  if (message.close === true) {
    db.close()
    parentPort!.close()
    return
  }
  try {
    parentPort!.postMessage({ seq: message.seq, outcomes: runBatch(message.plants!) })
  } catch (error) {
    const { code, message: text } = error as { code?: string, message?: string }
    parentPort!.postMessage({ seq: message.seq, error: { code, message: text } })
  }
})
