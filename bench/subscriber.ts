import { execFileSync } from 'node:child_process'
import type { BenchServer } from './servers.js'
import { cli, startProcess } from './servers.js'

/** How long after the load the deliveries are counted: the "delivered within 5 s after the load". */
const GRACE_MS = 5000

export interface SubscriberRun { server: BenchServer, receiverUrl: string, subscriptionId: number, stopReceiver: () => Promise<void>, firstId: number }

const receiverStats = async (run: SubscriberRun, from = 0, to = Number.MAX_SAFE_INTEGER) =>
  await (await fetch(`${run.receiverUrl}/stats?from=${from}&to=${to}`)).json() as {
    received: number, delivered: number, duplicates: number, lagP50Ms: number | null, lagP99Ms: number | null
  }

/** Starts a receiver in a process of its own and subscribes it, from the command line, to the server's store. */
export async function addSubscriber (server: BenchServer): Promise<SubscriberRun> {
  const receiver = await startProcess('webhook receiver', ['bench/receiver-server.mjs'], '/stats')
  const added = execFileSync(process.execPath, [cli, 'webhooks', 'add', `${receiver.url}/hook`, '--json', '--database', server.database!], { encoding: 'utf8' })
  // The server's dispatcher picks up a subscriber added elsewhere within its safety poll (1 s).
  await new Promise((resolve) => setTimeout(resolve, 1500))
  return { server, receiverUrl: receiver.url, subscriptionId: JSON.parse(added).id, stopReceiver: receiver.stop, firstId: 0 }
}

/**
 * After the measured run: waits GRACE_MS, counts the plants of the run delivered by then, and removes
 * the subscriber (its backlog is given up) so that it does not weigh on the next scenario.
 */
export async function removeSubscriber (run: SubscriberRun, created: number, endId: number) {
  await new Promise((resolve) => setTimeout(resolve, GRACE_MS))
  const stats = await receiverStats(run, run.firstId, endId)
  execFileSync(process.execPath, [cli, 'webhooks', 'remove', String(run.subscriptionId), '--database', run.server.database!])
  await run.stopReceiver()
  return {
    deliveredWithin5s: created === 0 ? null : Math.round((stats.delivered / created) * 1000) / 1000,
    lagP50Ms: stats.lagP50Ms,
    lagP99Ms: stats.lagP99Ms,
    duplicates: stats.duplicates
  }
}
