import { Module } from '@nestjs/common';
import { APP_CONFIG } from 'src/config/app-config';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { MODEL_GATEWAY } from 'src/modules/models/model-gateway';
import { ModelsModule } from 'src/modules/models/models.module';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { CompileJobsRepository } from './compile-jobs.repository';
import { CompileJobsWorker } from './compile-jobs.worker';
import { EmbeddingBackfillService } from './embeddings/embedding-backfill';
import { EmbeddingBackfillRepository } from './embeddings/embedding-backfill.repository';
import { MemoriesController } from './memories.controller';
import { MemoriesRepository } from './memories.repository';
import { MemoriesExportRepository } from './memories-export.repository';
import { CompileJobSignal } from './compile-job-signal';
import { CompileService } from './compile.service';
import { MemoriesBulkService } from './memories-bulk.service';
import { MemoriesService } from './memories.service';
import { MemoryEmbeddingsService } from './memory-embeddings.service';
import { MemoryRecordsService } from './memory-records.service';
import { createMemoryCompiler, MEMORY_COMPILER } from './memory-compiler';
import { SubjectLock } from './subject-lock';

@Module({
  imports: [ModelsModule, EpisodesModule, WebhooksModule, PolicyModule],
  controllers: [MemoriesController],
  providers: [
    CompileJobSignal,
    CompileService,
    MemoriesService,
    MemoriesBulkService,
    MemoryEmbeddingsService,
    MemoryRecordsService,
    SubjectLock,
    MemoriesRepository,
    MemoriesExportRepository,
    CompileJobsRepository,
    CompileJobsWorker,
    EmbeddingBackfillRepository,
    EmbeddingBackfillService,
    { provide: MEMORY_COMPILER, inject: [APP_CONFIG, MODEL_GATEWAY], useFactory: createMemoryCompiler },
  ],
  exports: [CompileService, MemoriesService, MemoriesBulkService, MemoryRecordsService, SubjectLock],
})
export class MemoriesModule {}
