import type { PlantStore } from './plant-store.js'
import type { TokenStore } from './token-store.js'
import type { WebhookStore } from './webhook-store.js'

/** What a write of this process committed, as its readers need to hear it. */
export type Commit =
  /** A create, replace or delete: the event log grew; `deliveriesWaiting`: webhook deliveries wait in the outbox. */
  | { kind: 'plants', deliveriesWaiting: boolean }
  /** Subscriptions changed (added, removed, changed, disabled with their owner); `deliveriesDue`: one may send at once. */
  | { kind: 'subscriptions', deliveriesDue: boolean }
  /** Deliveries are due again (a recovery, a redelivery). */
  | { kind: 'deliveries' }

export type CommitListener = (commit: Commit) => void | Promise<void>

/**
 * The one place a store announces what it committed: the event feed and the webhook dispatcher
 * subscribe when the app is built, so no route wakes either. A write answers once its listeners have
 * heard it (the dispatcher has read changed subscriptions before the answer goes out).
 */
export class Commits {
  readonly #listeners = new Set<CommitListener>()

  /** Hears every commit from now on; answers the function that stops it. */
  subscribe (listener: CommitListener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /**
   * Tells every listener; a listener's failure never fails the write, which is committed already. Answers
   * a promise only when a listener is still at work (most are done at once: a create costs no promise here).
   */
  announce (commit: Commit): Promise<void> | undefined {
    let working: Array<Promise<void>> | undefined
    for (const listener of this.#listeners) {
      try {
        const result = listener(commit)
        if (result instanceof Promise) (working ??= []).push(result.catch(() => {}))
      } catch {}
    }
    return working === undefined ? undefined : Promise.all(working).then(() => {})
  }
}

/** Runs `write`, then announces `commitOf` its result (when it names one) before answering it. */
function announced<T> (commits: Commits, write: Promise<T>, commitOf: (result: T) => Commit | undefined): Promise<T> {
  return write.then((result) => {
    const commit = commitOf(result)
    const heard = commit === undefined ? undefined : commits.announce(commit)
    return heard === undefined ? result : heard.then(() => result)
  })
}

/** The plant store's writes, announcing what they committed. */
export function announcingPlants (plants: PlantStore, commits: Commits): PlantStore {
  return {
    list: (query) => plants.list(query),
    get: (id) => plants.get(id),
    handOff: (handoff) => plants.handOff(handoff),
    create: (plant) => announced(commits, plants.create(plant),
      (outcome) => outcome.kind === 'created' ? { kind: 'plants', deliveriesWaiting: outcome.enqueued } : undefined),
    replace: (plant, precondition) => announced(commits, plants.replace(plant, precondition),
      (outcome) => outcome.kind === 'done' ? { kind: 'plants', deliveriesWaiting: outcome.enqueued } : undefined),
    delete: (id, precondition) => announced(commits, plants.delete(id, precondition),
      (outcome) => outcome.kind === 'done' ? { kind: 'plants', deliveriesWaiting: outcome.enqueued } : undefined),
    purgeKeys: (now, max) => plants.purgeKeys(now, max),
    write: (request) => announced(commits, plants.write(request),
      (response) => response.kind === 'answered' && response.written ? { kind: 'plants', deliveriesWaiting: response.enqueued } : undefined)
  }
}

/** The webhook store, its subscription changes and renewed deliveries announced. */
export function announcingWebhooks (webhooks: WebhookStore, commits: Commits): WebhookStore {
  const changed: Commit = { kind: 'subscriptions', deliveriesDue: false }
  return {
    listSubscriptions: (query) => webhooks.listSubscriptions(query),
    getSubscription: (id) => webhooks.getSubscription(id),
    rotateSecret: (id, secret, graceMs) => webhooks.rotateSecret(id, secret, graceMs),
    claim: (claim) => webhooks.claim(claim),
    adopt: (subscriptionId, handed) => webhooks.adopt(subscriptionId, handed),
    release: (deliveries) => webhooks.release(deliveries),
    recordAttempt: (delivery, result) => webhooks.recordAttempt(delivery, result),
    listDeliveries: (query) => webhooks.listDeliveries(query),
    disableFailing: (failingBefore, now) => webhooks.disableFailing(failingBefore, now),
    pruneDeliveries: (before, max, after) => webhooks.pruneDeliveries(before, max, after),
    backlog: () => webhooks.backlog(),
    addSubscription: (subscription) => announced(commits, webhooks.addSubscription(subscription), (added) => added === undefined ? undefined : changed),
    removeSubscription: (id) => announced(commits, webhooks.removeSubscription(id), (removed) => removed ? changed : undefined),
    updateSubscription: (id, changes) => announced(commits, webhooks.updateSubscription(id, changes),
      (updated) => updated === undefined ? undefined : { kind: 'subscriptions', deliveriesDue: updated.state === 'enabled' }),
    recover: (subscriptionId, since) => announced(commits, webhooks.recover(subscriptionId, since), () => ({ kind: 'deliveries' })),
    redeliver: (subscriptionId, messageId) => announced(commits, webhooks.redeliver(subscriptionId, messageId), (due) => due ? { kind: 'deliveries' } : undefined)
  }
}

/** The token store, a revocation announced: it disabled the token's subscriptions. */
export function announcingTokens (tokens: TokenStore, commits: Commits): TokenStore {
  const changed = (revoked: unknown): Commit | undefined => revoked === undefined ? undefined : { kind: 'subscriptions', deliveriesDue: false }
  return {
    findByToken: (token) => tokens.findByToken(token),
    create: (token) => tokens.create(token),
    createFirst: (token) => tokens.createFirst(token),
    find: (id) => tokens.find(id),
    countActive: () => tokens.countActive(),
    list: (page) => tokens.list(page),
    activeIds: (ids) => tokens.activeIds(ids),
    purgeEnded: (before, max) => tokens.purgeEnded(before, max),
    recordUse: (id) => tokens.recordUse(id),
    close: () => tokens.close(),
    revokeById: (id) => announced(commits, tokens.revokeById(id), changed),
    revokeByName: (name) => announced(commits, tokens.revokeByName(name), changed)
  }
}
