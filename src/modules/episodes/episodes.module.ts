import { Module } from '@nestjs/common';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { EpisodesController } from './episodes.controller';
import { EpisodesRepository } from './episodes.repository';
import { EpisodesExportRepository } from './episodes-export.repository';
import { EpisodesBulkService } from './episodes-bulk.service';
import { EpisodesService } from './episodes.service';

@Module({
  imports: [WebhooksModule],
  controllers: [EpisodesController],
  providers: [EpisodesService, EpisodesBulkService, EpisodesRepository, EpisodesExportRepository],
  exports: [EpisodesService, EpisodesBulkService],
})
export class EpisodesModule {}
