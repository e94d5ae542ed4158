import { Module } from '@nestjs/common';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { MemoriesModule } from 'src/modules/memories/memories.module';
import { ReceiptsModule } from 'src/modules/receipts/receipts.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { HealthMarksSweeper } from './health-marks.sweeper';
import { SupportController } from './support.controller';
import { SupportRepository } from './support.repository';
import { SupportService } from './support.service';

@Module({
  imports: [EpisodesModule, MemoriesModule, WebhooksModule, ReceiptsModule],
  controllers: [SupportController],
  providers: [SupportService, SupportRepository, HealthMarksSweeper],
  exports: [SupportService],
})
export class SupportModule {}
