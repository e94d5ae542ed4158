import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { DatabaseThrottlerStorage } from './database-throttler.storage';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RateLimitCleanup } from './rate-limit-cleanup.service';
import { RateLimiter } from './rate-limiter';
import { RATE_LIMIT_WINDOW_MS } from './throttle.constants';

/**
 * Rate limiting with @nestjs/throttler's storage interface and our storages. The authentication
 * gate calls RateLimiter before anything else (see src/common/auth/auth-gate.ts).
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, DataSource],
      useFactory: (config: AppConfig, ds: DataSource) => ({
        throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: config.rateLimitRpm }],
        storage: config.rateLimitStrategy === 'memory' ? new MemoryThrottlerStorage() : new DatabaseThrottlerStorage(ds),
      }),
    }),
  ],
  providers: [RateLimiter, RateLimitCleanup],
  exports: [ThrottlerModule, RateLimiter],
})
export class ThrottleModule {}
