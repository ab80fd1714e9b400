// The SQLite writer thread: runs write batches on its own connection, so that the fsync of each
// commit blocks this thread, not the event loop that serves requests.
import { parentPort, workerData } from 'node:worker_threads'
import { connect } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { createWriteRunner } from './write-jobs.js'
import type { WriteJob } from './write-jobs.js'

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
const db = connect(path, synchronous)
const runBatch = createWriteRunner(db, synchronous)

parentPort!.on('message', (message: { seq: number, jobs?: WriteJob[], close?: true }) => {
  if (message.close === true) {
    db.close()
    parentPort!.close()
    return
  }
  try {
    parentPort!.postMessage({ seq: message.seq, results: runBatch(message.jobs!) })
  } catch (error) {
    const { code, message: text } = error as { code?: string, message?: string }
    parentPort!.postMessage({ seq: message.seq, error: { code, message: text } })
  }
})
