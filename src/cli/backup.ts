import { resolve } from 'node:path'
import { BackupUnsupported } from '../store/store.js'
import { openForData } from './data.js'
import { Progress } from './progress.js'
import { UsageError } from './usage-error.js'

/** plantstore backup: SQLite's online backup of a live store, then integrity_check on the copy. */
export async function runBackup (file: string, { database, quiet }: { database?: string, quiet?: boolean }) {
  const store = await openForData(database)
  try {
    const progress = new Progress('backed up', { quiet })
    const { pages } = await store.bulk.backup(resolve(file)).catch((error: unknown) => {
      throw error instanceof BackupUnsupported ? new UsageError(error.message, 2) : new UsageError((error as Error).message, 1)
    })
    progress.add(pages)
    progress.done(`backed up ${pages} pages to ${file}; integrity_check ok`)
  } finally {
    await store.close()
  }
}
