import { truncateToTokens } from 'src/common/text/tokenizer';
import { ModelCallError } from 'src/modules/models/model-gateway';
import type { ModelGateway } from 'src/modules/models/model-gateway';
import type { EmbeddingProvider } from './embedding-provider.types';

/** OpenAI's embedding models take 8191 tokens per input; longer texts are embedded by their opening. */
const MAX_INPUT_TOKENS = 8000;

/**
 * The model answered with vectors of another size than EMBEDDING_DIMENSIONS: a configuration
 * error. Nothing of that answer is stored (a wrong-size vector would corrupt search).
 */
export class EmbeddingDimensionError extends Error {}

export interface OpenAIEmbeddingSettings {
  model: string;
  dimensions: number;
  batchSize: number;
  /** auto: send `dimensions` only to models known to accept it (text-embedding-3-*). */
  sendDimensions: 'auto' | 'true' | 'false';
}

/**
 * EMBEDDING_PROVIDER=openai: OpenAI or any OpenAI-compatible server through the model gateway
 * (retries, timeout, concurrency). Texts go in batches of EMBEDDING_BATCH_SIZE; every vector is
 * checked against EMBEDDING_DIMENSIONS before anyone sees it. Throws on any failure: the compile
 * then stores the memories flagged needs_embedding and the backfill embeds them later.
 */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly name = 'openai';
  readonly remote = true;

  constructor(
    private readonly gateway: ModelGateway,
    private readonly settings: OpenAIEmbeddingSettings,
  ) {}

  get dimensions(): number {
    return this.settings.dimensions;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const send = this.settings.sendDimensions === 'true' || (this.settings.sendDimensions === 'auto' && /text-embedding-3/i.test(this.settings.model));
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += this.settings.batchSize) {
      // An empty input is an error at OpenAI; a single space embeds as "nothing" everywhere.
      const batch = texts.slice(start, start + this.settings.batchSize).map((t) => truncateToTokens(t, MAX_INPUT_TOKENS) || ' ');
      const vectors = await this.gateway.embed(this.settings.model, batch, send ? this.settings.dimensions : undefined);
      for (const v of vectors) {
        if (v.length !== this.settings.dimensions) {
          throw new EmbeddingDimensionError(
            `embedding model ${this.settings.model} at ${this.gateway.endpointOf('embeddings')} returned ${v.length} dimensions but SERVICE_EMBEDDING_DIMENSIONS is ${this.settings.dimensions}: set SERVICE_EMBEDDING_DIMENSIONS to the model's size${send ? '' : ', or SERVICE_EMBEDDING_SEND_DIMENSIONS=true if the model can shorten its vectors'}`,
          );
        }
        if (!v.every(Number.isFinite)) throw new ModelCallError('invalid_response', `embedding model ${this.settings.model} returned a vector with non-finite numbers`);
      }
      out.push(...vectors);
    }
    return out;
  }
}
