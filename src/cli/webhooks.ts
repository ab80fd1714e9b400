import type { Command } from 'commander'
import { EVENT_TYPES } from '../contract/events.js'
import type { EventType } from '../contract/events.js'
import { isDateTime } from '../contract/validators.js'
import { generateSecret } from '../webhooks/signature.js'
import { databaseOption, databasePasswordFileOption } from './options.js'
import { printJson, printTable, withStore } from './store-access.js'
import { CommandFailure, UsageError } from './command-errors.js'

/** Only absolute http(s) URLs with a port other than 0 can receive deliveries. */
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
  if (url.port === '0') throw new UsageError(`invalid webhook URL ${text}: port 0 cannot receive webhooks`)
  return url.href
}

/** `--events a,b`: types of the catalog, each once. */
function parseEvents (text: string): EventType[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()).filter((name) => name !== ''))]
  const unknown = names.find((name) => !(EVENT_TYPES as readonly string[]).includes(name))
  if (names.length === 0 || unknown !== undefined) throw new UsageError(`invalid --events ${text}: expected a comma-separated list of ${EVENT_TYPES.join(', ')}`)
  return names as EventType[]
}

function parseRate (text: string): number {
  const rate = Number(text)
  if (!Number.isInteger(rate) || rate < 1 || rate > 100_000) throw new UsageError(`invalid --max-per-second ${text}: expected an integer from 1 to 100000`)
  return rate
}

/** A subscription id as the commands take it, or a failure naming it. */
const subscriptionId = (id: string): number => {
  if (!/^\d{1,15}$/.test(id)) throw new CommandFailure(`no webhook subscription ${id}`)
  return Number(id)
}

export function registerWebhooks (program: Command) {
  const webhooks = program.command('webhooks').description('manage subscribers of the newPlant webhook (an operator\'s: all of them)')

  webhooks.command('add')
    .description('subscribe a URL to new plants (the newPlant body), or with --events to those events (Standard Webhooks envelopes); prints its id and signing secret')
    .argument('<url>')
    .option('--events <types>', `comma-separated: ${EVENT_TYPES.join(', ')}`, parseEvents)
    .option('--max-per-second <n>', 'deliveries a second at most', parseRate)
    .option('--json', 'print one JSON object {"id", "url", "secret"}')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (url: string, options: { json?: boolean, database?: string, databasePasswordFile?: string, events?: EventType[], maxPerSecond?: number }) => {
      // An operator's subscription has no owner, hence no cap.
      const subscription = (await withStore(options, (store) => store.webhooks.addSubscription({
        url: checkUrl(url), secret: generateSecret(), operator: true, events: options.events ?? null, maxPerSecond: options.maxPerSecond ?? null
      })))!
      if (options.json === true) return printJson({ id: subscription.id, url: subscription.url, secret: subscription.secret })
      process.stdout.write(`subscription ${subscription.id}: ${subscription.url}\nsigning secret: ${subscription.secret}\n`)
    })

  webhooks.command('list')
    .description('list subscribers')
    .option('--json', 'one JSON array')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (options: { json?: boolean, database?: string, databasePasswordFile?: string }) => {
      const list = await withStore(options, (store) => store.webhooks.listSubscriptions({ withBacklog: true }))
      if (options.json === true) {
        return printJson(list.map(({ id, url, owner, createdAt, events, state, lastSuccessAt, consecutiveFailures, backlog, lastError }) =>
          ({ id, url, owner, createdAt, events, state, lastSuccessAt, consecutiveFailures, backlog, lastError })))
      }
      printTable(['ID', 'URL', 'OWNER', 'EVENTS', 'STATE', 'BACKLOG', 'FAILURES', 'LAST ERROR'], list.map((s) => [
        String(s.id), s.url, s.owner ?? 'operator', s.events?.join(',') ?? 'newPlant', s.state, String(s.backlog), String(s.consecutiveFailures), s.lastError ?? '-'
      ]))
    })

  for (const state of ['enabled', 'disabled'] as const) {
    webhooks.command(state === 'enabled' ? 'enable' : 'disable')
      .description(state === 'enabled'
        ? 'enable a subscription again; what is pending is sent at once (a running server picks it up within a second)'
        : 'stop sending to a subscription; its events are kept until it is enabled')
      .argument('<id>')
      .addOption(databaseOption()).addOption(databasePasswordFileOption())
      .action(async (id: string, options: { database?: string, databasePasswordFile?: string }) => {
        const updated = await withStore(options, (store) => store.webhooks.updateSubscription(subscriptionId(id), { state }))
        if (updated === undefined) throw new CommandFailure(`no webhook subscription ${id}`)
        process.stdout.write(`subscription ${id}: ${state}\n`)
      })
  }

  webhooks.command('recover')
    .description('send again a subscription\'s failed and given-up events created since a time')
    .argument('<id>')
    .requiredOption('--since <time>', 'RFC 3339, e.g. 2026-11-24T08:00:00Z')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (id: string, options: { database?: string, databasePasswordFile?: string, since: string }) => {
      if (!isDateTime(options.since)) throw new UsageError(`invalid --since ${options.since}: expected an RFC 3339 time with its zone`)
      const since = Date.parse(options.since)
      const recovered = await withStore(options, async (store) => {
        if (await store.webhooks.getSubscription(subscriptionId(id)) === undefined) throw new CommandFailure(`no webhook subscription ${id}`)
        return store.webhooks.recover(Number(id), new Date(since))
      })
      process.stdout.write(`subscription ${id}: ${recovered} events due again\n`)
    })

  webhooks.command('remove')
    .description('unsubscribe; its undelivered events are given up')
    .argument('<id>')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (id: string, options: { database?: string, databasePasswordFile?: string }) => {
      const removed = await withStore(options, (store) => store.webhooks.removeSubscription(subscriptionId(id)))
      if (!removed) throw new CommandFailure(`no webhook subscription ${id}`)
      process.stdout.write(`removed subscription ${id}\n`)
    })

  webhooks.command('deliveries')
    .description('recent delivery attempts, newest first')
    .option('--json', 'one JSON array')
    .option('--limit <n>', 'how many', '50')
    .addOption(databaseOption()).addOption(databasePasswordFileOption())
    .action(async (options: { json?: boolean, limit: string, database?: string, databasePasswordFile?: string }) => {
      const limit = Number(options.limit)
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`invalid --limit ${options.limit}: expected a positive integer`)
      const list = await withStore(options, (store) => store.webhooks.listDeliveries({ limit }))
      if (options.json === true) return printJson(list)
      printTable(['ID', 'PLANT', 'URL', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'LAST ERROR', 'NEXT TRY'], list.map((d) => [
        String(d.id), String(d.plantId), d.url, d.state, String(d.attempts), String(d.lastStatus ?? '-'),
        d.lastError ?? '-', d.nextAttemptAt?.toISOString() ?? '-'
      ]))
    })
}
