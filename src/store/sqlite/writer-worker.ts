// The SQLite writer thread: runs write batches on its own connection, so that the fsync of each
// commit blocks this thread, not the event loop that serves requests. Jobs arrive from the main
// thread and from ports handed to other threads (the webhook dispatcher's); whatever arrived in one
// turn of this thread's event loop is committed together, in one transaction.
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { connect } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import type { ThreadReply } from '../../lib/thread-channel.js'
import { createWriteRunner } from './write-jobs.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
const db = connect(path, synchronous, 'thread')
const runBatch = createWriteRunner(db, synchronous)

interface Pending { seq: number, jobs: WriteJob[], reply: { postMessage: (reply: ThreadReply<WriteResult>) => void } }
let pending: Pending[] = []
let scheduled = false

function flush () {
  scheduled = false
  const batch = pending
  pending = []
  try {
    const results = runBatch(batch.flatMap((message) => message.jobs))
    let at = 0
    for (const message of batch) {
      message.reply.postMessage({ seq: message.seq, results: results.slice(at, at + message.jobs.length) })
      at += message.jobs.length
    }
  } catch (error) {
    const { code, message: text } = error as { code?: string, message?: string }
    for (const message of batch) message.reply.postMessage({ seq: message.seq, error: { code, message: text } })
  }
}

function receive (reply: Pending['reply'], message: { seq: number, jobs: WriteJob[] }) {
  pending.push({ seq: message.seq, jobs: message.jobs, reply })
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}

parentPort!.on('message', (message: { seq: number, jobs: WriteJob[] } | { attach: MessagePort } | { close: true }) => {
  if ('close' in message) {
    if (pending.length > 0) flush()
    db.close()
    parentPort!.close()
    process.exit(0)
  }
  if ('attach' in message) {
    const port = message.attach
    port.on('message', (jobs: { seq: number, jobs: WriteJob[] }) => receive(port, jobs))
    return
  }
  receive(parentPort!, message)
})
