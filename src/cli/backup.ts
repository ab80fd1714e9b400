import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { BackupUnsupported } from '../store/store.js'
import { withStore } from './store-access.js'
import { Progress } from './progress.js'
import { CommandFailure, UsageError } from './command-errors.js'

/** plantstore backup: SQLite's online backup of a live store, then integrity_check on the copy. */
export async function runBackup (file: string, { quiet, ...database }: { database?: string, databasePasswordFile?: string, quiet?: boolean }) {
  if (existsSync(file)) throw new UsageError(`cannot back up to ${file}: it exists already; name a new file`)
  if (!existsSync(dirname(resolve(file)))) throw new UsageError(`cannot back up to ${file}: the folder ${dirname(file)} does not exist`)
  await withStore(database, async (store) => {
    const progress = new Progress('backed up', { quiet })
    const { pages } = await store.bulk.backup(resolve(file)).catch((error: unknown) => {
      throw error instanceof BackupUnsupported ? new UsageError(error.message) : new CommandFailure((error as Error).message)
    })
    progress.add(pages)
    progress.done(`backed up ${pages} pages to ${file}; integrity_check ok`, pages)
  })
}
