import type { ThrottlerStorage } from '@nestjs/throttler';
import { retryAfterSeconds } from './retry-after';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Per-process sliding window (contract "Rate limiting", memory strategy): the times of the
 * accepted requests of the last `ttl` per key. A request is refused while `limit` of them are
 * younger than `ttl`, and may retry when the oldest one ages out. Refused requests are not
 * recorded, so a client that backs off is not punished further. Keys idle for a whole window
 * are dropped on a sweep at most once per window, which bounds memory by the active clients.
 */
export class MemoryThrottlerStorage implements ThrottlerStorage {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    this.sweep(now, ttl);
    const times = this.hits.get(key) ?? [];
    let expired = 0;
    while (expired < times.length && times[expired] <= now - ttl) expired++;
    if (expired > 0) times.splice(0, expired);
    const isBlocked = times.length >= limit;
    if (!isBlocked) times.push(now);
    if (times.length > 0) this.hits.set(key, times);
    const secondsToOldestExpiry = times.length > 0 ? (times[0] + ttl - now) / 1000 : ttl / 1000;
    return {
      totalHits: times.length + (isBlocked ? 1 : 0),
      timeToExpire: Math.ceil(secondsToOldestExpiry),
      isBlocked,
      timeToBlockExpire: isBlocked ? retryAfterSeconds(secondsToOldestExpiry, ttl / 1000) : 0,
    };
  }

  /** Number of keys held, for tests of the sweep. */
  get size(): number {
    return this.hits.size;
  }

  private sweep(now: number, ttl: number): void {
    if (now - this.lastSweep < ttl) return;
    this.lastSweep = now;
    for (const [key, times] of this.hits) {
      if (times.length === 0 || times[times.length - 1] <= now - ttl) this.hits.delete(key);
    }
  }
}
