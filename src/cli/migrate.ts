import type { Command } from 'commander'
import { databaseOption, databasePasswordFileOption } from './options.js'
import { withStore } from './store-access.js'

/** Opening a store applies its pending migrations; this command does only that. */
export function registerMigrate (program: Command) {
  program.command('migrate')
    .description('apply pending database migrations, then exit')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (options: { database?: string, databasePasswordFile?: string }) => {
      await withStore(options, async () => {}, { create: true })
      process.stdout.write('migrations applied\n')
    })
}
