import { MemoryThrottlerStorage } from './memory-throttler.storage';

const WINDOW = 60_000;

describe('MemoryThrottlerStorage', () => {
  let now = 1_000_000;
  const storage = () => new MemoryThrottlerStorage(() => now);
  beforeEach(() => {
    now = 1_000_000;
  });

  it('allows `limit` requests in a sliding minute and refuses the next until the oldest ages out', async () => {
    const s = storage();
    expect((await s.increment('ip:a', WINDOW, 2)).isBlocked).toBe(false);
    now += 20_000;
    expect((await s.increment('ip:a', WINDOW, 2)).isBlocked).toBe(false);
    now += 10_000;
    const refused = await s.increment('ip:a', WINDOW, 2);
    expect(refused).toMatchObject({ isBlocked: true, totalHits: 3, timeToBlockExpire: 30 });
    // Sliding, not fixed: at 60 s the first hit has aged out, the second has not.
    now = 1_000_000 + WINDOW;
    expect((await s.increment('ip:a', WINDOW, 2)).isBlocked).toBe(false);
    expect((await s.increment('ip:a', WINDOW, 2))).toMatchObject({ isBlocked: true, timeToBlockExpire: 20 });
  });

  it('keeps keys apart', async () => {
    const s = storage();
    await s.increment('ip:a', WINDOW, 1);
    expect((await s.increment('ip:a', WINDOW, 1)).isBlocked).toBe(true);
    expect((await s.increment('ip:b', WINDOW, 1)).isBlocked).toBe(false);
  });

  it('does not count refused requests, so a client that waits gets through', async () => {
    const s = storage();
    await s.increment('ip:a', WINDOW, 1);
    for (let i = 0; i < 100; i++) await s.increment('ip:a', WINDOW, 1);
    now += WINDOW;
    expect((await s.increment('ip:a', WINDOW, 1)).isBlocked).toBe(false);
  });

  it('gives a Retry-After of at least 1 s even when the oldest hit expires within the second', async () => {
    const s = storage();
    await s.increment('ip:a', WINDOW, 1);
    now += WINDOW - 1;
    expect((await s.increment('ip:a', WINDOW, 1)).timeToBlockExpire).toBe(1);
  });

  it('forgets clients idle for a whole window', async () => {
    const s = storage();
    for (let i = 0; i < 50; i++) await s.increment(`ip:${i}`, WINDOW, 5);
    expect(s.size).toBe(50);
    now += WINDOW + 1;
    await s.increment('ip:new', WINDOW, 5);
    expect(s.size).toBe(1);
  });
});
