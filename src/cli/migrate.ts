import type { Command } from 'commander'
import { databaseOption } from './options.js'
import { withStore } from './store-access.js'

/** Opening a store applies its pending migrations; this command does only that. */
export function registerMigrate (program: Command) {
  program.command('migrate')
    .description('apply pending database migrations, then exit')
    .addOption(databaseOption())
    .action(async ({ database }: { database?: string }) => {
      await withStore(database, async () => {}, { create: true })
      process.stdout.write('migrations applied\n')
    })
}
