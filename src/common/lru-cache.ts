/** A bounded map that forgets the least recently used entry first (Map keeps insertion order). */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
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
    this.entries.delete(key);
    return value;
  }

  /** Stores the value and returns it. */
  set(key: K, value: V): V {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return value;
  }
}
