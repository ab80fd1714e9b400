import { Option } from 'commander'
import type { Command } from 'commander'
import { databaseOption, databasePasswordFileOption } from './options.js'

const quietOption = () => new Option('--quiet', 'no progress and no summary on stderr')

/**
 * plantstore export | import | copy | backup: moving data (see export.ts, import.ts, copy.ts, backup.ts,
 * loaded when run). Exit codes: 0 done, 1 stopped by bad input or a conflict, 2 usage or configuration.
 */
export function registerData (program: Command) {
  program.command('export')
    .description('write every plant as NDJSON, in id order, each line the body GET /plants/{id} answers')
    .option('--output <file>', 'write to this file (default: stdout)')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .addOption(quietOption())
    .action(async (options: { output?: string, database?: string, databasePasswordFile?: string, quiet?: boolean }) => {
      await (await import('./export.js')).runExport(options)
    })

  program.command('import')
    .description('read NDJSON plants (as export writes them) from a file, or - for stdin, and store them in batches')
    .argument('<file>', 'the NDJSON file, or - for stdin')
    .addOption(new Option('--on-conflict <mode>', 'a plant stored under the same id with other content: fail (stop), skip (keep the stored one) or replace')
      .choices(['fail', 'skip', 'replace']).default('fail'))
    .option('--notify', 'send the newPlant webhook for each plant created (default: none)')
    .addOption(new Option('--batch-size <n>', 'plants committed per transaction').default('20000'))
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .addOption(quietOption())
    .action(async (file: string, options: { onConflict: 'fail' | 'skip' | 'replace', notify?: boolean, batchSize: string, database?: string, databasePasswordFile?: string, quiet?: boolean }) => {
      await (await import('./import.js')).runImport(file, options)
    })

  program.command('copy')
    .description('copy a whole store (plants, tokens, webhook subscriptions, undelivered events) into an empty one')
    .requiredOption('--from <url>', 'the store to copy: sqlite:PATH or postgres://…')
    .requiredOption('--to <url>', 'the empty store to fill: sqlite:PATH or postgres://…')
    .addOption(quietOption())
    .action(async (options: { from: string, to: string, quiet?: boolean }) => {
      await (await import('./copy.js')).runCopy(options)
    })

  program.command('backup')
    .description('a consistent copy of a live SQLite store, checked with integrity_check (PostgreSQL: use pg_dump)')
    .argument('<file>', 'the new file to write')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .addOption(quietOption())
    .action(async (file: string, options: { database?: string, databasePasswordFile?: string, quiet?: boolean }) => {
      await (await import('./backup.js')).runBackup(file, options)
    })
}
