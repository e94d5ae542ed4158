import { Logger } from '@nestjs/common';
import type { AppConfig } from 'src/config/app-config';
import type { ModelGateway } from 'src/modules/memories/llm/model-gateway';
import { OpenAIEmbeddingProvider } from './openai-embedding-provider';
import { stubEmbedding } from './stub-embedding';

/** The configured embedding provider, or null for EMBEDDING_PROVIDER=none (no embeddings at all). */
export const EMBEDDING_PROVIDER = Symbol('EMBEDDING_PROVIDER');

export interface EmbeddingProvider {
  readonly name: string;
  readonly dimensions: number;
  /**
   * True when embed() goes over the network: the compile pipeline then never calls it inside
   * a transaction (it would hold the subject lock, and PGlite's only connection, meanwhile).
   */
  readonly remote?: boolean;
  /** One vector of `dimensions` numbers per text, in order. May throw: callers degrade gracefully. */
  embed(texts: string[]): Promise<number[][]>;
}

/** Deterministic, local, no network: hashed word and character n-grams (see stub-embedding.ts). */
export class StubEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'stub';
  readonly remote = false;

  constructor(readonly dimensions: number) {}

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => stubEmbedding(text, this.dimensions));
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
      if (!gateway.configured) {
        new Logger('embeddings').warn(
          'SERVICE_EMBEDDING_PROVIDER=openai without SERVICE_OPENAI_API_KEY or SERVICE_OPENAI_BASE_URL: memories are stored without embeddings (needs_embedding) and semantic search uses text search',
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
