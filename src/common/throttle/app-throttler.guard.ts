import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerLimitDetail, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { retryAfterSeconds } from './retry-after';

/**
 * The first global guard (before the API key, so a key-guessing flood is limited too).
 * Contract "Rate limiting": RATE_LIMIT_RPM requests per minute per client IP — one counter per
 * IP across all routes, not per route, tenant or key. `req.ip` honours TRUSTED_PROXIES (Express
 * "trust proxy", set in app.setup.ts), so X-Forwarded-For counts only behind a trusted proxy.
 * Probes opt out with @SkipThrottle; the docs are served outside Nest's router and never reach
 * a guard.
 */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  /** RATE_LIMIT_RPM 0 disables limiting: no storage call at all. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.config.rateLimitRpm === 0 || context.getType() !== 'http';
  }

  protected override async getTracker(req: Request): Promise<string> {
    return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
  }

  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return `ip:${tracker}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new AppError(ErrorCode.RateLimited, `Rate limit exceeded. Max ${detail.limit} requests per minute.`, null, {
      'Retry-After': String(retryAfterSeconds(detail.timeToBlockExpire, detail.ttl / 1000)),
    });
  }
}
