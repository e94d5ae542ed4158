import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { retryAfterSeconds } from './retry-after';
import { RATE_LIMIT_WINDOW_MS } from './throttle.constants';

/**
 * Contract "Rate limiting": RATE_LIMIT_RPM requests per minute per client IP — one counter per
 * IP across all routes (unknown ones included), not per route, tenant or key. Called by the
 * authentication gate before the key is checked (so a key-guessing flood is limited too) and
 * before any body is read. `req.ip` honours TRUSTED_PROXIES (Express "trust proxy", set in
 * app.setup.ts). The storages are @nestjs/throttler's interface; the headers are the ones its
 * guard sets.
 */
@Injectable()
export class RateLimiter {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async hit(req: Request, res: Response): Promise<void> {
    const limit = this.config.rateLimitRpm;
    // RATE_LIMIT_RPM 0 disables limiting: no storage call at all.
    if (limit === 0) return;
    const tracker = req.ip ?? req.socket?.remoteAddress ?? 'unknown';
    const r = await this.storage.increment(`ip:${tracker}`, RATE_LIMIT_WINDOW_MS, limit, RATE_LIMIT_WINDOW_MS, 'default');
    if (r.isBlocked) {
      throw new AppError(ErrorCode.RateLimited, `Rate limit exceeded. Max ${limit} requests per minute.`, null, {
        'Retry-After': String(retryAfterSeconds(r.timeToBlockExpire, RATE_LIMIT_WINDOW_MS / 1000)),
      });
    }
    res.setHeader('X-RateLimit-Limit', limit);
    res.setHeader('X-RateLimit-Remaining', Math.max(0, limit - r.totalHits));
    res.setHeader('X-RateLimit-Reset', r.timeToExpire);
  }
}
