import { LRUCache } from 'lru-cache'

/**
 * A string-keyed LRU cache bounded in bytes, not entries (`sizeOf` counts the key too: callers choose
 * keys); an entry larger than the bound is never kept, one older than `ttlMs` never answered.
 */
export function boundedCache<V extends {}> ({ maxBytes, sizeOf, ttlMs }: {
  maxBytes: number
  sizeOf: (value: V, key: string) => number
  ttlMs?: number
}): LRUCache<string, V> {
  return new LRUCache<string, V>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (value, key) => Math.max(1, sizeOf(value, key)),
    ...(ttlMs !== undefined && { ttl: ttlMs })
  })
}

/** The bytes a string takes in memory: two per UTF-16 unit, as V8 holds any string that is not Latin-1. */
export const stringBytes = (text: string) => text.length * 2
