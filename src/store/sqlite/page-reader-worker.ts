// A page reader thread: the list queries beyond the plain one (a filter, a search, another order, a
// count) on a read-only connection of its own. Such a query may read much of the table; here it blocks
// this thread, not the event loop serving everyone else's requests.
import { workerData } from 'node:worker_threads'
import { connect } from './connection.js'
import type { SqliteSynchronous } from './connection.js'
import { plantPages } from './plant-pages.js'
import { sentError } from '../../lib/thread-channel.js'
import type { SentError } from '../../lib/thread-channel.js'
import type { PlantPage, PlantQuery } from '../store.js'

/** A page, or the error (with the driver's code) that failed it. */
export type PageAnswer = { page: PlantPage } | { error: SentError }

const { path, synchronous } = workerData as { path: string, synchronous: SqliteSynchronous }
// Opened with the first page, not as the thread starts: opening loads SQLite's addon, and a thread
// terminated while an addon loads aborts the process (a pool closed just after it started its threads).
// A page runs as a task, which the pool's close() waits for.
let pages: ((query: PlantQuery) => PlantPage) | undefined

export default function readPage (query: PlantQuery): PageAnswer {
  try {
    pages ??= plantPages(connect(path, synchronous, 'main', { readonly: true }))
    return { page: pages(query) }
  } catch (error) {
    return { error: sentError(error) }
  }
}
