import type { Command } from 'commander'
import { generateSecret } from '../webhooks/signature.js'
import { databaseOption } from './options.js'
import { printJson, printTable, withStore } from './store-access.js'
import { CommandFailure, UsageError } from './command-errors.js'

/** Only absolute http(s) URLs can receive deliveries. */
function checkUrl (text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`invalid webhook URL ${text}: expected an absolute http:// or https:// URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`invalid webhook URL ${text}: only http:// and https:// URLs can receive webhooks`)
  }
  return url.href
}

export function registerWebhooks (program: Command) {
  const webhooks = program.command('webhooks').description('manage subscribers of the newPlant webhook (an operator\'s: all of them)')

  webhooks.command('add')
    .description('subscribe a URL to new plants; prints its id and signing secret')
    .argument('<url>')
    .option('--json', 'print one JSON object {"id", "url", "secret"}')
    .addOption(databaseOption())
    .action(async (url: string, options: { json?: boolean, database?: string }) => {
      // An operator's subscription has no owner, hence no cap.
      const subscription = (await withStore(options.database, (store) => store.webhooks.addSubscription({ url: checkUrl(url), secret: generateSecret(), operator: true })))!
      if (options.json === true) return printJson({ id: subscription.id, url: subscription.url, secret: subscription.secret })
      process.stdout.write(`subscription ${subscription.id}: ${subscription.url}\nsigning secret: ${subscription.secret}\n`)
    })

  webhooks.command('list')
    .description('list subscribers')
    .option('--json', 'one JSON array')
    .addOption(databaseOption())
    .action(async (options: { json?: boolean, database?: string }) => {
      const list = await withStore(options.database, (store) => store.webhooks.listSubscriptions({ withLastError: true }))
      if (options.json === true) return printJson(list.map(({ id, url, owner, createdAt, lastError }) => ({ id, url, owner, createdAt, lastError })))
      printTable(['ID', 'URL', 'OWNER', 'CREATED', 'LAST ERROR'], list.map((s) => [String(s.id), s.url, s.owner ?? 'operator', s.createdAt.toISOString(), s.lastError ?? '-']))
    })

  webhooks.command('remove')
    .description('unsubscribe; its undelivered events are given up')
    .argument('<id>')
    .addOption(databaseOption())
    .action(async (id: string, options: { database?: string }) => {
      const removed = /^\d+$/.test(id) && await withStore(options.database, (store) => store.webhooks.removeSubscription(Number(id)))
      if (!removed) throw new CommandFailure(`no webhook subscription ${id}`)
      process.stdout.write(`removed subscription ${id}\n`)
    })

  webhooks.command('deliveries')
    .description('recent delivery attempts, newest first')
    .option('--json', 'one JSON array')
    .option('--limit <n>', 'how many', '50')
    .addOption(databaseOption())
    .action(async (options: { json?: boolean, limit: string, database?: string }) => {
      const limit = Number(options.limit)
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`invalid --limit ${options.limit}: expected a positive integer`)
      const list = await withStore(options.database, (store) => store.webhooks.listDeliveries({ limit }))
      if (options.json === true) return printJson(list)
      printTable(['ID', 'PLANT', 'URL', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'LAST ERROR', 'NEXT TRY'], list.map((d) => [
        String(d.id), String(d.plantId), d.url, d.state, String(d.attempts), String(d.lastStatus ?? '-'),
        d.lastError ?? '-', d.nextAttemptAt?.toISOString() ?? '-'
      ]))
    })
}
