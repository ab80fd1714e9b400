import type { Delivery } from '../store/store.js'

/**
 * One lane's deliveries waiting to start, in the outbox's order (by id). A claim may return before a
 * handover made earlier has been read (its subscription, see SubscriberLane.take): while a handover is
 * being read, nothing written after its first delivery starts.
 */
export class DeliveryQueue {
  readonly #queue: Delivery[] = []
  readonly #adopting: Array<{ first: number, count: number }> = []

  get length (): number { return this.#queue.length }

  /** Deliveries waiting or being read. */
  get pending (): number {
    return this.#queue.length + this.#adopting.reduce((sum, { count }) => sum + count, 0)
  }

  /** A handover of these delivery ids is being read; call the returned function when it is done. */
  adopting (ids: number[]): () => void {
    const handover = { first: Math.min(...ids), count: ids.length }
    this.#adopting.push(handover)
    return () => { this.#adopting.splice(this.#adopting.indexOf(handover), 1) }
  }

  add (deliveries: Delivery[]) {
    this.#queue.push(...deliveries)
    this.#queue.sort((a, b) => a.id - b.id)
  }

  /** Whether a delivery waits that no handover being read came before. */
  get startable (): boolean {
    const head = this.#queue[0]
    return head !== undefined && this.#adopting.every(({ first }) => head.id < first)
  }

  /** The next delivery (when startable). */
  shift (): Delivery {
    return this.#queue.shift()!
  }

  /** Every waiting delivery, taken out. */
  drain (): Delivery[] {
    return this.#queue.splice(0)
  }
}
