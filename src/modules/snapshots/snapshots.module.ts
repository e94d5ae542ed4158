import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { SubjectsModule } from 'src/modules/subjects/subjects.module';
import { SnapshotsCleanupService } from './snapshots-cleanup.service';
import { SnapshotsCleanupScheduler } from './snapshots-cleanup.scheduler';
import { SnapshotsEnabledMiddleware } from './snapshots-enabled.middleware';
import { SnapshotsController } from './snapshots.controller';
import { SnapshotsRepository } from './snapshots.repository';
import { SnapshotsService } from './snapshots.service';

@Module({
  imports: [EpisodesModule, MemoriesModule, ReceiptsModule, SubjectsModule],
  controllers: [SnapshotsController],
  providers: [SnapshotsService, SnapshotsCleanupService, SnapshotsRepository, SnapshotsCleanupScheduler],
  exports: [SnapshotsService],
})
export class SnapshotsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SnapshotsEnabledMiddleware).forRoutes(SnapshotsController);
  }
}
