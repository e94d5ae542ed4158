import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { TenantScope } from 'src/common/db/tenant-scope';
import { EmbeddingsService } from 'src/modules/models/embeddings.service';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { EmbeddingBackfillRepository } from './embeddings/embedding-backfill.repository';
import type { NewMemory } from './memories.repository';

/**
 * Vectors of memories being stored, for the compile pipeline and single-memory writes. A local
 * provider embeds inside the write's transaction; a remote one never does (it would hold the
 * subject lock, and PGlite's only connection): its memories are flagged and embedded after the
 * commit. A failing provider never fails a write: the memory is flagged needs_embedding for
 * the backfill.
 */
@Injectable()
export class MemoryEmbeddingsService {
  private readonly logger = new Logger('memories');

  constructor(
    private readonly ds: DataSource,
    private readonly embeddings: EmbeddingsService,
    private readonly embeddingRows: EmbeddingBackfillRepository,
  ) {}

  /**
   * Vectors for memories about to be stored inside a transaction: a local provider embeds them
   * now; a remote one is never called there, so they are flagged for embedDeferred after the
   * commit.
   */
  async embedForInsert(rows: NewMemory[]): Promise<void> {
    if (this.embeddings.remote) for (const row of rows) row.needs_embedding = true;
    else await this.attachEmbeddings(rows);
  }

  /**
   * After the commit: vectors for memories a remote provider could not embed inside the
   * transaction. Never throws: the memories are committed, so a failure of the provider or of
   * storing the vectors (the database answering an error now) is logged and leaves them flagged
   * needs_embedding for the backfill; the caller still answers success for its write.
   */
  async embedDeferred(scope: TenantScope, rows: MemoryRow[]): Promise<void> {
    const owed = rows.filter((r) => r.needs_embedding);
    if (!this.embeddings.remote || owed.length === 0) return;
    try {
      const vectors = await this.embeddings.embed(owed.map((r) => r.content));
      await this.embeddingRows.store(
        this.ds.manager,
        scope,
        owed.map((r, i) => ({ id: r.id, embedding: vectors[i] })),
      );
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message }, memories: owed.length }, 'embedding after the commit failed; memories stay flagged needs_embedding for the backfill');
      return;
    }
    for (const row of owed) row.needs_embedding = false;
  }

  /**
   * Embeds the new memories' content. A failing provider does not fail the compile: the
   * memories are stored without a vector and flagged needs_embedding for a later backfill.
   * A zero vector (content without tokens) carries no direction: stored as no embedding.
   */
  async attachEmbeddings(rows: NewMemory[]): Promise<void> {
    if (!this.embeddings.enabled || rows.length === 0) return;
    let vectors: (number[] | null)[];
    try {
      vectors = await this.embeddings.embed(rows.map((r) => r.content));
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message }, memories: rows.length }, 'embedding failed; memories stored without embeddings, flagged needs_embedding');
      for (const row of rows) row.needs_embedding = true;
      return;
    }
    rows.forEach((row, i) => {
      row.embedding = vectors[i];
    });
  }
}
