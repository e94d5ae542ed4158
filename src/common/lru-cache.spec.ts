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

  it('with a weight, forgets the least recently used entries until the rest weigh at most the bound', () => {
    const c = new LruCache<string, number>(100, { max: 10, of: (key) => key.length });
    c.set('aaaa', 1);
    c.set('bbbb', 2);
    expect(c.totalWeight).toBe(8);
    c.get('aaaa'); // bbbb is now the least recent
    c.set('ccc', 3);
    expect(c.get('bbbb')).toBeUndefined();
    expect(c.get('aaaa')).toBe(1);
    expect(c.get('ccc')).toBe(3);
    expect(c.totalWeight).toBe(7);
  });

  it('with a weight, does not keep an entry heavier than the bound, and counts replaced and taken entries out', () => {
    const c = new LruCache<string, string>(100, { max: 10, of: (_key, value) => value.length });
    c.set('a', 'xx');
    expect(c.set('big', 'x'.repeat(11))).toBe('x'.repeat(11));
    expect(c.get('big')).toBeUndefined();
    expect(c.get('a')).toBe('xx');
    c.set('a', 'xxxxx');
    expect(c.totalWeight).toBe(5);
    c.take('a');
    expect(c.totalWeight).toBe(0);
    expect(() => new LruCache(1, { max: 0, of: () => 1 })).toThrow(RangeError);
  });

  it('keeps an entry looked up since eviction last passed it, and evicts even when every entry was looked up', () => {
    const c = new LruCache<string, number>(3);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    c.get('a');
    c.set('d', 4); // a had a hit: b, the oldest without one, goes; a moves behind d
    expect(c.get('b')).toBeUndefined();
    expect(c.get('c')).toBe(3);
    expect(c.get('d')).toBe(4);
    expect(c.get('a')).toBe(1);
    // c, d and a were all just looked up: one round clears their marks, the new entry is passed
    // over, and then the first of them in the walk's order goes.
    c.set('e', 5);
    expect(c.size).toBe(3);
    expect(c.get('c')).toBeUndefined();
    expect([c.get('d'), c.get('a'), c.get('e')]).toEqual([4, 1, 5]);
  });
});
