// The SQLite page reader thread: answers the list queries beyond the plain one (a filter, a search,
// another order, a count) on a read-only connection of its own. Such a query may read much of the
// table; here it blocks this thread, not the event loop that serves everyone else's requests.
import { parentPort, workerData } from 'node:worker_threads'
import type { ThreadReply } from '../../lib/thread-channel.js'
import type { PlantPage, PlantQuery } from '../store.js'
import { connect } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { plantPages } from './plant-pages.js'

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
const db = connect(path, synchronous, 'main', { readonly: true })
const pages = plantPages(db)

parentPort!.on('message', (message: { seq: number, jobs: PlantQuery[] } | { close: true }) => {
  if ('close' in message) {
    db.close()
    parentPort!.close()
    process.exit(0)
  }
  let reply: ThreadReply<PlantPage>
  try {
    reply = { seq: message.seq, results: message.jobs.map(pages) }
  } catch (error) {
    const { code, message: text } = error as { code?: string, message?: string }
    reply = { seq: message.seq, error: { code, message: text } }
  }
  parentPort!.postMessage(reply)
})
