import { Module } from '@nestjs/common';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { createEmbeddingProvider, EMBEDDING_PROVIDER } from './embedding-provider';
import { EmbeddingsService } from './embeddings.service';
import { MODEL_GATEWAY, ModelGateway } from './model-gateway';

/**
 * Model access: the gateway to chat and embedding models (OpenAI or a compatible server, with
 * its concurrency limit, retries and metrics) and the configured embedding provider. The
 * compile pipeline (llm compiler, memory embeddings), search and context use it.
 */
@Module({
  providers: [
    { provide: MODEL_GATEWAY, inject: [APP_CONFIG], useFactory: (config: AppConfig) => ModelGateway.fromConfig(config) },
    { provide: EMBEDDING_PROVIDER, inject: [APP_CONFIG, MODEL_GATEWAY], useFactory: createEmbeddingProvider },
    EmbeddingsService,
  ],
  exports: [MODEL_GATEWAY, EMBEDDING_PROVIDER, EmbeddingsService],
})
export class ModelsModule {}
