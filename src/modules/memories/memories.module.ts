import { Module } from '@nestjs/common';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { EpisodesModule } from 'src/modules/episodes/episodes.module';
import { PolicyModule } from 'src/modules/policy/policy.module';
import { WebhooksModule } from 'src/modules/webhooks/webhooks.module';
import { CompileJobsRepository } from './compile-jobs.repository';
import { CompileJobsWorker } from './compile-jobs.worker';
import { EmbeddingBackfillService } from './embeddings/embedding-backfill';
import { EmbeddingBackfillRepository } from './embeddings/embedding-backfill.repository';
import { createEmbeddingProvider, EMBEDDING_PROVIDER } from './embeddings/embedding-provider';
import { MODEL_GATEWAY, ModelGateway } from './llm/model-gateway';
import { MemoriesController } from './memories.controller';
import { MemoriesRepository } from './memories.repository';
import { CompileJobSignal } from './compile-job-signal';
import { MemoriesService } from './memories.service';
import { MemoryRecordsService } from './memory-records.service';
import { createMemoryCompiler, MEMORY_COMPILER } from './memory-compiler';

@Module({
  imports: [EpisodesModule, WebhooksModule, PolicyModule],
  controllers: [MemoriesController],
  providers: [
    CompileJobSignal,
    MemoriesService,
    MemoryRecordsService,
    MemoriesRepository,
    CompileJobsRepository,
    CompileJobsWorker,
    EmbeddingBackfillRepository,
    EmbeddingBackfillService,
    { provide: MODEL_GATEWAY, inject: [APP_CONFIG], useFactory: (config: AppConfig) => ModelGateway.fromConfig(config) },
    { provide: MEMORY_COMPILER, inject: [APP_CONFIG, MODEL_GATEWAY], useFactory: createMemoryCompiler },
    { provide: EMBEDDING_PROVIDER, inject: [APP_CONFIG, MODEL_GATEWAY], useFactory: createEmbeddingProvider },
  ],
  exports: [MemoriesService, MemoryRecordsService],
})
export class MemoriesModule {}
