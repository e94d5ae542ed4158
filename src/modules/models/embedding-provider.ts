import { Logger } from '@nestjs/common';
import type { AppConfig } from 'src/config/app-config';
import type { ModelGateway } from 'src/modules/models/model-gateway';
import type { EmbeddingProvider } from './embedding-provider.types';
import { OpenAIEmbeddingProvider } from './openai-embedding-provider';
import { LruCache } from 'src/common/lru-cache';
import { SparseVector, sparseCosine, stubEmbedding, stubSparseEmbedding } from './stub-embedding';

/** The configured embedding provider, or null for EMBEDDING_PROVIDER=none (no embeddings at all). */
export const EMBEDDING_PROVIDER = Symbol('EMBEDDING_PROVIDER');

/** Deterministic, local, no network: hashed word and character n-grams (see stub-embedding.ts). */
export class StubEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'stub';
  readonly remote = false;
  readonly lexical = true;
  /**
   * Recently scored texts' sparse vectors. Context and search score the same memories again
   * and again; a hit skips tokenising and hashing (~15 µs a text). About 2 kB an entry.
   */
  private readonly cache = new LruCache<string, SparseVector>(4096);

  constructor(readonly dimensions: number) {}

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => stubEmbedding(text, this.dimensions));
  }

  localSimilarity(query: string): ((text: string) => number) | null {
    const q = stubSparseEmbedding(query, this.dimensions);
    if (!q.value.some((x) => x !== 0)) return null;
    return (text) => sparseCosine(q, this.cache.get(text) ?? this.cache.set(text, stubSparseEmbedding(text, this.dimensions)));
  }
}

export class EmbeddingUnavailableError extends Error {}

/**
 * EMBEDDING_PROVIDER=openai without a key or a base URL: nothing to call. Every call fails
 * without a request, so memories are stored with needs_embedding=true (the backfill embeds
 * them once the provider is configured) and semantic search answers with text search.
 */
export class UnavailableEmbeddingProvider implements EmbeddingProvider {
  readonly remote = false;

  constructor(
    readonly name: string,
    readonly dimensions: number,
  ) {}

  async embed(): Promise<number[][]> {
    throw new EmbeddingUnavailableError(`embedding provider ${this.name} is not configured: set SERVICE_OPENAI_API_KEY, or SERVICE_OPENAI_BASE_URL for a local server`);
  }
}

export function createEmbeddingProvider(config: AppConfig, gateway: ModelGateway): EmbeddingProvider | null {
  switch (config.embeddingProvider) {
    case 'none':
      return null;
    case 'stub':
      return new StubEmbeddingProvider(config.embeddingDimensions);
    case 'openai':
      if (!gateway.configuredFor('embeddings')) {
        new Logger('embeddings').warn(
          'SERVICE_EMBEDDING_PROVIDER=openai without SERVICE_OPENAI_API_KEY, SERVICE_OPENAI_BASE_URL or SERVICE_EMBEDDING_BASE_URL: memories are stored without embeddings (needs_embedding) and semantic search uses text search',
        );
        return new UnavailableEmbeddingProvider(config.embeddingProvider, config.embeddingDimensions);
      }
      return new OpenAIEmbeddingProvider(gateway, {
        model: config.openaiEmbeddingModel,
        dimensions: config.embeddingDimensions,
        batchSize: config.embeddingBatchSize,
        sendDimensions: config.embeddingSendDimensions,
      });
  }
}

/** A zero vector (text without any token) has no direction: it is stored and searched as no embedding. */
export function isUsableVector(v: number[] | undefined, dimensions: number): v is number[] {
  return Array.isArray(v) && v.length === dimensions && v.every(Number.isFinite) && v.some((x) => x !== 0);
}
