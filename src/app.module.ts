import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import { AllExceptionsFilter } from 'src/common/errors/all-exceptions.filter';
import { AuthGate } from 'src/common/auth/auth-gate';
import { JsonBodyGuard } from 'src/common/guards/json-body.guard';
import { RoleGuard } from 'src/common/guards/role.guard';
import { HttpDrainService } from 'src/common/http/http-drain.service';
import { TenantGuard } from 'src/common/guards/tenant.guard';
import { ThrottleModule } from 'src/common/throttle/throttle.module';
import { AppValidationPipe } from 'src/common/http/validation.pipe';
import { LOG_STREAM, LogStreamModule } from 'src/common/logging/log-stream.module';
import { TracingModule } from 'src/common/tracing/tracing.module';
import { loggerParams } from 'src/common/logging/logging';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { ConfigModule } from 'src/config/config.module';
import { DatabaseModule } from 'src/db/database.module';
import { AdminModule } from 'src/modules/admin/admin.module';
import { ApiKeysModule } from 'src/modules/api-keys/api-keys.module';
import { ContextModule } from 'src/modules/context/context.module';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { McpModule } from 'src/modules/mcp/mcp.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { MetricsModule } from 'src/modules/metrics/metrics.module';
import { OpsModule } from 'src/modules/ops/ops.module';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { ReplayModule } from 'src/modules/replay/replay.module';
import { SnapshotsModule } from 'src/modules/snapshots/snapshots.module';
import { SubjectsModule } from 'src/modules/subjects/subjects.module';
import { SupportModule } from 'src/modules/support/support.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';

@Module({
  imports: [
    ConfigModule,
    LogStreamModule,
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG, LOG_STREAM],
      useFactory: (config: AppConfig, stream: NodeJS.WritableStream | null) => loggerParams(config, stream),
    }),
    // Before the database and the routes: spans for HTTP requests and queries (off unless configured).
    TracingModule,
    DatabaseModule,
    // The timer registry every background loop registers its next round in (common/jobs/polling-loop.ts).
    ScheduleModule.forRoot(),
    ThrottleModule,
    ApiKeysModule,
    OpsModule,
    WebhooksModule,
    EpisodesModule,
    MemoriesModule,
    ContextModule,
    SupportModule,
    SubjectsModule,
    PolicyModule,
    ReceiptsModule,
    ReplayModule,
    AdminModule,
    SnapshotsModule,
    McpModule,
    MetricsModule,
  ],
  providers: [
    // Rate limit and API key run earlier, in AuthGate (before routing). Guards then run in this
    // order: the matched route's role, the tenant header, and last the body read.
    { provide: APP_GUARD, useClass: RoleGuard },
    { provide: APP_GUARD, useClass: TenantGuard },
    { provide: APP_GUARD, useClass: JsonBodyGuard },
    AuthGate,
    { provide: APP_PIPE, useClass: AppValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    HttpDrainService,
  ],
})
export class AppModule {}
