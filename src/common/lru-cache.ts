/**
 * Bounds of an LruCache beyond its number of entries: a weight per entry (e.g. the characters of
 * a text key) and the most the entries may weigh together, for caches whose entries vary in size
 * by orders of magnitude, where a count alone would not bound the memory held.
 */
export interface CacheWeight<K, V> {
  max: number;
  of(key: K, value: V): number;
}

/**
 * A bounded map that forgets a least recently used entry first, by the CLOCK approximation
 * (second chance): a hit only marks its entry as used, and eviction walks the entries in
 * insertion order, moving a marked one to the back (unmarked) and forgetting the first unmarked
 * one. Moving every hit to the back instead (a Map delete and set) cost a context request about
 * a millisecond: its ranking looks up every candidate's analysed text, hundreds of hits.
 * An entry used since it was last passed over outlives every entry that was not.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
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
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** Removes the entry and returns it (a caller that changes a value puts it back with `set`). */
  take(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    this.forget(key, slot.value);
    return slot.value;
  }

  /** Stores the value and returns it. An entry heavier than the whole bound is returned, not kept. */
  set(key: K, value: V): V {
    const old = this.entries.get(key);
    if (old !== undefined) this.forget(key, old.value);
    const weight = this.weighed?.of(key, value) ?? 0;
    if (this.weighed !== undefined && weight > this.weighed.max) return value;
    this.entries.set(key, { value, used: false });
    this.weight += weight;
    while (this.entries.size > this.capacity || (this.weighed !== undefined && this.weight > this.weighed.max)) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [K, Slot<V>];
      if (oldest.used || oldestKey === key) {
        // Second chance: to the back, unmarked. Each pass unmarks what it moves, so the walk
        // meets an unmarked entry within one round of the entries; the entry being stored is
        // passed over, not forgotten before it could be used.
        oldest.used = false;
        this.entries.delete(oldestKey);
        this.entries.set(oldestKey, oldest);
        continue;
      }
      this.forget(oldestKey, oldest.value);
    }
    return value;
  }

  private forget(key: K, value: V): void {
    this.entries.delete(key);
    if (this.weighed !== undefined) this.weight -= this.weighed.of(key, value);
  }
}

interface Slot<V> {
  value: V;
  /** Looked up since it was stored or last passed over by eviction. */
  used: boolean;
}
