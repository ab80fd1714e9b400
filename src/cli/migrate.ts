import type { Command } from 'commander'
import { parseDatabaseUrl, SETTINGS } from '../config.js'
import { openStore } from '../store/open-store.js'
import { databaseOption } from './options.js'

/** Opening a store applies its pending migrations; this command does only that. */
export function registerMigrate (program: Command) {
  program.command('migrate')
    .description('apply pending database migrations, then exit')
    .addOption(databaseOption())
    .action(async ({ database }: { database?: string }) => {
      const store = await openStore(parseDatabaseUrl(database ?? SETTINGS.database[2]))
      await store.close()
      process.stdout.write('migrations applied\n')
    })
}
