import { Inject, Injectable, Logger } from '@nestjs/common';
import { EMBEDDING_PROVIDER, isUsableVector } from './embedding-provider';
import type { EmbeddingProvider } from './embedding-provider.types';

/**
 * The configured embedding provider as the rest of the service uses it: the compile pipeline and
 * memory writes embed memories, search and context embed queries. Knows nothing of memories.
 */
@Injectable()
export class EmbeddingsService {
  private readonly logger = new Logger('embeddings');

  constructor(@Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider | null) {}

  /** False for EMBEDDING_PROVIDER=none: nothing is embedded at all. */
  get enabled(): boolean {
    return this.provider !== null;
  }

  /** True when embedding goes over the network (never inside a transaction, see MemoryEmbeddingsService). */
  get remote(): boolean {
    return this.provider?.remote === true;
  }

  /** True when the embedding only restates the text's words (stub; see EmbeddingProvider.lexical). */
  get lexical(): boolean {
    return this.provider?.lexical === true;
  }

  /**
   * One vector per text, in order; null where the vector carries no direction (a zero vector:
   * stored and searched as no embedding). Throws when the provider fails; callers degrade.
   */
  async embed(texts: string[]): Promise<(number[] | null)[]> {
    if (this.provider === null) return texts.map(() => null);
    const vectors = await this.provider.embed(texts);
    const dims = this.provider.dimensions;
    return texts.map((_, i) => (isUsableVector(vectors[i], dims) ? vectors[i] : null));
  }

  /**
   * With a local embedding (stub), the cosine to `query` computed from a text, for semantic
   * ranking without stored vectors; null for other providers or a query with nothing to embed.
   */
  localSimilarity(query: string): ((text: string) => number) | null {
    return this.provider?.localSimilarity?.(query) ?? null;
  }

  /**
   * The query vector for a text, or null when embeddings are off, the provider fails, or the
   * text has no content to embed (a zero vector). Never throws: callers fall back to text.
   */
  async embedQuery(text: string): Promise<number[] | null> {
    if (this.provider === null) return null;
    try {
      const [vector] = await this.embed([text]);
      return vector;
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'query embedding failed; using text search');
      return null;
    }
  }
}
