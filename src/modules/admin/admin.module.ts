import { Module } from '@nestjs/common';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { CompileJobsModule } from 'src/modules/memories/compile-jobs.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

@Module({
  imports: [CompileJobsModule, EpisodesModule, MemoriesModule, ReceiptsModule],
  controllers: [AdminController],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
