import { displayUrl } from '../lib/display-url.js'
import { withStore } from './store-access.js'
import { counted, Progress } from './progress.js'
import { InputError, UsageError } from './command-errors.js'

const BATCH = 10_000

/**
 * plantstore copy: a whole store (plants, tokens as hashes with their scopes, expiry and revocation,
 * subscriptions with their secrets, undelivered events) into an empty store of either kind. A target
 * holding anything is refused before anything is written.
 */
export async function runCopy ({ from, to, quiet }: { from: string, to: string, quiet?: boolean }) {
  if (from === to) throw new UsageError('--from and --to name the same store')
  await withStore(from, async (source) => withStore(to, async (target) => {
    const held = await target.bulk.contents()
    const nonEmpty = Object.entries(held).filter(([, count]) => count > 0)
    if (nonEmpty.length > 0) {
      throw new InputError(`the target ${displayUrl(to)} is not empty (${nonEmpty.map(([kind, count]) => `${count} ${kind}`).join(', ')}); copy writes only into an empty store`)
    }
    const contents = await source.bulk.contents()
    const metadata = await source.bulk.metadata()
    const progress = new Progress('copied', { quiet, total: contents.plants })
    await target.bulk.restore(source.bulk.plants(BATCH), metadata, (count) => progress.add(count))
    const subscriptions = metadata.subscriptions.filter((row) => row.removed_at === null).length
    progress.done(`copied ${counted(progress.count, 'plant')}, ${counted(metadata.tokens.length, 'token')}, ${counted(subscriptions, 'webhook subscription')} ` +
      `and ${counted(metadata.deliveries.length, 'undelivered event')} from ${displayUrl(from)} to ${displayUrl(to)}`)
  }, { flag: '--to', create: true }), { flag: '--from' })
}
