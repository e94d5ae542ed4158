import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('forgets the least recently used entry beyond its capacity', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    expect(c.get('c')).toBe(3);
    expect(c.size).toBe(2);
  });

  it('returns the stored value from set and replaces an existing key in place', () => {
    const c = new LruCache<string, number>(2);
    expect(c.set('a', 1)).toBe(1);
    c.set('a', 5);
    expect(c.size).toBe(1);
    expect(c.get('a')).toBe(5);
  });

  it('take removes the entry and returns it; an absent key gives undefined', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    expect(c.take('a')).toBe(1);
    expect(c.size).toBe(0);
    expect(c.get('a')).toBeUndefined();
    expect(c.take('a')).toBeUndefined();
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
