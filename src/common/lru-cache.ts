/**
 * Bounds of an LruCache beyond its number of entries: a weight per entry (e.g. the characters of
 * a text key) and the most the entries may weigh together, for caches whose entries vary in size
 * by orders of magnitude, where a count alone would not bound the memory held.
 */
export interface CacheWeight<K, V> {
  max: number;
  of(key: K, value: V): number;
}

/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly capacity: number,
    private readonly weighed?: CacheWeight<K, V>,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    if (weighed !== undefined && !(weighed.max > 0)) throw new RangeError(`max weight must be positive, got ${weighed.max}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the entries weigh together (0 without a weight). */
  get totalWeight(): number {
    return this.weight;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Removes the entry and returns it (a caller that changes a value puts it back with `set`). */
  take(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.forget(key, value);
    return value;
  }

  /** Stores the value and returns it. An entry heavier than the whole bound is returned, not kept. */
  set(key: K, value: V): V {
    const old = this.entries.get(key);
    if (old !== undefined) this.forget(key, old);
    const weight = this.weighed?.of(key, value) ?? 0;
    if (this.weighed !== undefined && weight > this.weighed.max) return value;
    this.entries.set(key, value);
    this.weight += weight;
    while (this.entries.size > this.capacity || (this.weighed !== undefined && this.weight > this.weighed.max)) {
      const [oldestKey, oldestValue] = this.entries.entries().next().value as [K, V];
      this.forget(oldestKey, oldestValue);
    }
    return value;
  }

  private forget(key: K, value: V): void {
    this.entries.delete(key);
    if (this.weighed !== undefined) this.weight -= this.weighed.of(key, value);
  }
}
