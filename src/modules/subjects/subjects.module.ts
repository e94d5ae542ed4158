import { Module } from '@nestjs/common';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { SupportModule } from 'src/modules/support/support.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { SubjectsController } from './subjects.controller';
import { SubjectLifecycleService } from './subject-lifecycle.service';
import { SubjectsRepository } from './subjects.repository';
import { SubjectsService } from './subjects.service';

@Module({
  imports: [EpisodesModule, MemoriesModule, SupportModule, WebhooksModule, ReceiptsModule],
  controllers: [SubjectsController],
  providers: [SubjectsService, SubjectLifecycleService, SubjectsRepository],
  exports: [SubjectsService, SubjectLifecycleService],
})
export class SubjectsModule {}
