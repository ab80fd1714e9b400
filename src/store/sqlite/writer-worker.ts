// The SQLite writer thread: write batches on a connection of its own, so that each commit's fsync blocks
// this thread, not the event loop serving requests. What arrives in one turn of its event loop (the
// pool's tasks and the jobs of ports handed to it) commits together, in one transaction.
import { workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { connect } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { sentError } from '../../lib/thread-channel.js'
import type { ThreadReply } from '../../lib/thread-channel.js'
import { createWriteRunner } from './write-jobs.js'
import type { WriteJob, WriteResult } from './write-jobs.js'

/** A batch's answer: its results, or the error (with the driver's code) that rolled it back. */
export type WriterAnswer = Omit<ThreadReply<WriteResult>, 'seq'>
/** A batch, or a port another thread (the webhook dispatcher's) sends `{ seq, jobs }` batches through. */
export type WriterTask = WriteJob[] | { attach: MessagePort }

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
const runBatch = createWriteRunner(connect(path, synchronous, 'writer'), synchronous)

let pending: Array<{ jobs: WriteJob[], answer: (answer: WriterAnswer) => void }> = []

function flush () {
  const batch = pending
  pending = []
  let results: WriteResult[]
  try {
    results = runBatch(batch.flatMap(({ jobs }) => jobs))
  } catch (error) {
    for (const { answer } of batch) answer({ error: sentError(error) })
    return
  }
  let at = 0
  for (const { jobs, answer } of batch) answer({ results: results.slice(at, (at += jobs.length)) })
}

function submit (jobs: WriteJob[], answer: (answer: WriterAnswer) => void) {
  if (pending.push({ jobs, answer }) === 1) setImmediate(flush)
}

export default function write (task: WriterTask): Promise<WriterAnswer> | undefined {
  if (!('attach' in task)) return new Promise((resolve) => submit(task, resolve))
  const port = task.attach
  port.on('message', ({ seq, jobs }: { seq: number, jobs: WriteJob[] }) => submit(jobs, (answer) => port.postMessage({ seq, ...answer })))
  return undefined
}
