import { JobThread } from '../../lib/thread-channel.js'
import { spawnWorker } from '../../lib/worker-thread.js'
import type { PlantPage, PlantQuery } from '../store.js'
import type { SqliteSynchronous } from './connection.js'

// Each thread has the next page in hand while it reads one, so it never waits on the event loop between them.
const PAGES_IN_HAND = 2

/**
 * The threads that read pages beyond the plain list (page-reader-worker.ts), each on a read-only
 * connection of its own: WAL lets them read side by side. A page goes to the thread with the fewest
 * in hand, so that one slow query holds up only the pages queued behind it on its own thread.
 */
export class PageReaders {
  readonly #threads: Array<{ thread: JobThread<PlantQuery, PlantPage>, inHand: number }>
  /** How many pages to hand them at once (StoreDialect.pageReaders). */
  readonly atOnce: number

  constructor (count: number, path: string, synchronous: SqliteSynchronous) {
    this.atOnce = count * PAGES_IN_HAND
    this.#threads = Array.from({ length: count }, (_, index) => ({
      thread: new JobThread<PlantQuery, PlantPage>('SQLite page reader', () => spawnWorker(import.meta.url, 'page-reader-worker', {
        name: `sqlite-page-reader-${index + 1}`,
        workerData: { path, synchronous }
      })),
      inHand: 0
    }))
  }

  async read (query: PlantQuery): Promise<PlantPage> {
    const reader = this.#threads.reduce((least, next) => next.inHand < least.inHand ? next : least)
    reader.inHand++
    try {
      return (await reader.thread.run([query]))[0]!
    } finally {
      reader.inHand--
    }
  }

  async close () {
    await Promise.all(this.#threads.map(({ thread }) => thread.close()))
  }
}
