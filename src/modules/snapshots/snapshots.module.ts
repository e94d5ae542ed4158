import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { SnapshotsCleanupScheduler } from './snapshots-cleanup.scheduler';
import { SnapshotsEnabledMiddleware } from './snapshots-enabled.middleware';
import { SnapshotsController } from './snapshots.controller';
import { SnapshotsRepository } from './snapshots.repository';
import { SnapshotsService } from './snapshots.service';

@Module({
  controllers: [SnapshotsController],
  providers: [SnapshotsService, SnapshotsRepository, SnapshotsCleanupScheduler],
  exports: [SnapshotsService],
})
export class SnapshotsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SnapshotsEnabledMiddleware).forRoutes(SnapshotsController);
  }
}
