import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { AppThrottlerGuard } from './app-throttler.guard';
import { DatabaseThrottlerStorage } from './database-throttler.storage';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RateLimitCleanup } from './rate-limit-cleanup.service';
import { RATE_LIMIT_WINDOW_MS } from './throttle.constants';

/**
 * Rate limiting through @nestjs/throttler with our storages. AppModule registers
 * AppThrottlerGuard as its first APP_GUARD; this module supplies what the guard injects.
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
  providers: [AppThrottlerGuard, RateLimitCleanup],
  exports: [ThrottlerModule, AppThrottlerGuard],
})
export class ThrottleModule {}
