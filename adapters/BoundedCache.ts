/**
 * A map with a ceiling, for the structures a process keeps for as long as it runs and whose keys
 * a request or a client chooses: whatever the traffic, it never holds more than `maxEntries`
 * entries, nor (when values are weighed) more than `maxWeight` in total. Room is made by
 * dropping the least recently used entry; `get` counts as a use, `peek` does not, so a caller
 * that only ever peeks gets oldest-written-first eviction.
 *
 * A JavaScript `Map` iterates in insertion order, so deleting and setting a key again moves it
 * to the end: the first key is always the one to drop, and every operation is O(1).
 */

export interface Options<V> {
  readonly maxEntries: number
  /** The most the weights of all values may add up to; no limit when absent. */
  readonly maxWeight?: number
  /** A value's weight (bytes, say); 1 for each value when absent. */
  readonly weigh?: (value: V) => number
}

interface Weighed<V> {
  readonly value: V
  readonly weight: number
}

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, Weighed<V>>()
  private readonly options: Options<V>
  private total = 0

  constructor(options: Options<V>) {
    this.options = options
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** The value, leaving its place in the eviction order as it was. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value
  }

  /**
   * Stores the value as the most recently used, dropping the least recently used entries until
   * both limits hold. A value heavier than `maxWeight` on its own is not stored: it would push
   * out everything else and still not fit. Says whether the value was stored.
   */
  set(key: K, value: V): boolean {
    this.delete(key)
    const weight = this.options.weigh === undefined ? 1 : this.options.weigh(value)
    const maxWeight = this.options.maxWeight ?? Number.POSITIVE_INFINITY
    if (weight > maxWeight || this.options.maxEntries < 1) return false
    this.entries.set(key, { value, weight })
    this.total += weight
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.total <= maxWeight) break
      this.entries.delete(oldest)
      this.total -= entry.weight
    }
    return true
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key)
    if (entry === undefined) return false
    this.entries.delete(key)
    this.total -= entry.weight
    return true
  }

  /** The least recently used key, the next to go. */
  oldest(): K | undefined {
    for (const key of this.entries.keys()) return key
    return undefined
  }

  /** Entries from the least to the most recently used; deleting while iterating is safe. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value]
  }

  get size(): number {
    return this.entries.size
  }

  /** The weights of all values, added up. */
  get weight(): number {
    return this.total
  }
}

export const make = <K, V>(options: Options<V>): BoundedCache<K, V> => new BoundedCache(options)
