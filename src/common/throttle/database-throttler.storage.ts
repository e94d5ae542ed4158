import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { retryAfterSeconds } from './retry-after';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** What the limiter answers while the database cannot: allow (contract: fails open). */
const OPEN: ThrottlerStorageRecord = { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };

/**
 * Fixed window in `rate_limits` (contract "Rate limiting", distributed): one row per client
 * key, shared by every process on the database and kept across restarts. Each request is one
 * atomic upsert that starts a new window when the stored one has expired and otherwise counts
 * the hit. Times from @nestjs/throttler are milliseconds; answers are whole seconds.
 */
export class DatabaseThrottlerStorage implements ThrottlerStorage {
  private outage = false;

  constructor(
    private readonly ds: DataSource,
    private readonly logger: Pick<Logger, 'warn' | 'log'> = new Logger('rate-limit'),
  ) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const windowSeconds = ttl / 1000;
    let row: { hits: number; seconds_left: number };
    try {
      // Blocked requests count too (hits stays > limit until the window ends); the cap keeps
      // a flood from overflowing the integer column.
      [row] = await this.ds.query(
        `INSERT INTO rate_limits AS r (key, window_start, hits) VALUES ($1, now(), 1)
         ON CONFLICT (key) DO UPDATE SET
           window_start = CASE WHEN r.window_start <= now() - make_interval(secs => $2) THEN now() ELSE r.window_start END,
           hits = CASE WHEN r.window_start <= now() - make_interval(secs => $2) THEN 1 ELSE least(r.hits, 2147483646) + 1 END
         RETURNING hits, ceil(extract(epoch FROM r.window_start + make_interval(secs => $2) - now()))::int AS seconds_left`,
        [key, windowSeconds],
      );
    } catch (err) {
      // Once per outage: a down database would otherwise log a line per request.
      if (!this.outage) {
        this.logger.warn({ err: { message: (err as Error).message } }, 'rate limiter cannot reach the database; allowing requests until it is back');
      }
      this.outage = true;
      return OPEN;
    }
    if (this.outage) this.logger.log('rate limiter reached the database again; limiting resumed');
    this.outage = false;
    const secondsLeft = Math.max(0, row.seconds_left);
    const isBlocked = row.hits > limit;
    return { totalHits: row.hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? retryAfterSeconds(secondsLeft, windowSeconds) : 0 };
  }
}
