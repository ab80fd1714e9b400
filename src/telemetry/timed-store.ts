import type { PlantStore, Store, TokenStore, WebhookStore } from '../store/store.js'
import type { Metrics } from './metrics.js'
import { traced } from './tracing.js'
import type { Tracing } from './tracing.js'

type Call<A extends unknown[], R> = (...args: A) => Promise<R>

/**
 * Times one store operation into `plantstore_store_operation_duration_seconds` as `name`, and traces it
 * when traces are on. The histogram's child is found once, here, not per call.
 */
function timer (metrics: Metrics, tracing: Tracing | undefined, system: string) {
  return <A extends unknown[], R>(name: string, call: Call<A, R>): Call<A, R> => {
    const series = metrics.storeOperation(name)
    const timedCall: Call<A, R> = (...args) => {
      const start = performance.now()
      const result = call(...args)
      const observe = () => { series.observe((performance.now() - start) / 1000) }
      result.then(observe, observe)
      return result
    }
    // With traces off, the timed call itself: not a branch per call.
    return tracing === undefined ? timedCall : (...args) => traced(tracing, `store ${name}`, system, () => timedCall(...args))
  }
}

/**
 * The store with each plant, token and webhook operation timed (and traced, when traces are on), listed
 * one by one so that the compiler checks the list against the interfaces.
 */
export function instrumentStore (store: Store, metrics: Metrics, tracing?: Tracing): Store {
  const time = timer(metrics, tracing, store.dialect.name === 'postgres' ? 'postgresql' : 'sqlite')
  const { plants: p, tokens: t, webhooks: w } = store
  const plants: PlantStore = {
    create: time('plants.create', (plant) => p.create(plant)),
    list: time('plants.list', (query) => p.list(query)),
    get: time('plants.get', (id) => p.get(id)),
    replace: time('plants.replace', (plant, precondition) => p.replace(plant, precondition)),
    delete: time('plants.delete', (id, precondition) => p.delete(id, precondition)),
    write: time('plants.write', (request) => p.write(request)),
    purgeKeys: time('plants.purgeKeys', (now, max) => p.purgeKeys(now, max)),
    handOff: (handoff) => { p.handOff(handoff) }
  }
  const tokens: TokenStore = {
    // Answered from memory nearly always (token-cache.ts): timing each lookup would cost more than it does.
    findByToken: (token) => t.findByToken(token),
    create: time('tokens.create', (token) => t.create(token)),
    createFirst: time('tokens.createFirst', (token) => t.createFirst(token)),
    find: time('tokens.find', (id) => t.find(id)),
    countActive: time('tokens.countActive', () => t.countActive()),
    list: time('tokens.list', (page) => t.list(page)),
    revokeByName: time('tokens.revokeByName', (name) => t.revokeByName(name)),
    revokeById: time('tokens.revokeById', (id) => t.revokeById(id)),
    activeIds: time('tokens.activeIds', (ids) => t.activeIds(ids)),
    purgeEnded: time('tokens.purgeEnded', (before, max) => t.purgeEnded(before, max)),
    recordUse: (id) => { t.recordUse(id) },
    close: () => t.close()
  }
  const webhooks: WebhookStore = {
    addSubscription: time('webhooks.addSubscription', (subscription) => w.addSubscription(subscription)),
    listSubscriptions: time('webhooks.listSubscriptions', (query) => w.listSubscriptions(query)),
    getSubscription: time('webhooks.getSubscription', (id) => w.getSubscription(id)),
    removeSubscription: time('webhooks.removeSubscription', (id) => w.removeSubscription(id)),
    rotateSecret: time('webhooks.rotateSecret', (id, secret, graceMs) => w.rotateSecret(id, secret, graceMs)),
    claim: time('webhooks.claim', (claim) => w.claim(claim)),
    adopt: time('webhooks.adopt', (id, handed) => w.adopt(id, handed)),
    release: time('webhooks.release', (deliveries) => w.release(deliveries)),
    recordAttempt: time('webhooks.recordAttempt', (delivery, result) => w.recordAttempt(delivery, result)),
    listDeliveries: time('webhooks.listDeliveries', (query) => w.listDeliveries(query)),
    redeliver: time('webhooks.redeliver', (id, messageId) => w.redeliver(id, messageId)),
    updateSubscription: time('webhooks.updateSubscription', (id, changes) => w.updateSubscription(id, changes)),
    recover: time('webhooks.recover', (id, since) => w.recover(id, since)),
    disableFailing: time('webhooks.disableFailing', (before, now) => w.disableFailing(before, now)),
    pruneDeliveries: time('webhooks.pruneDeliveries', (before, max, after) => w.pruneDeliveries(before, max, after)),
    backlog: time('webhooks.backlog', () => w.backlog())
  }
  const { commits, dialect, events, bulk } = store
  return { commits, dialect, plants, tokens, webhooks, events, bulk, ping: () => store.ping(), close: () => store.close() }
}
