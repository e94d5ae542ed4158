import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { COUNT, ID_ROW, rowOf } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';

export interface PendingEmbedding {
  id: string;
  content: string;
  /** created_at as text: a Date would drop the microseconds the cursor needs. */
  cursor: string;
}

const PENDING_ROW = rowOf<PendingEmbedding>({ id: true, content: true, cursor: true });

/**
 * Memories stored without an embedding because the provider failed (needs_embedding). The
 * backfill works across tenants (an OperatorScope): a memory carries its own tenant, and an
 * embedding is no tenant's business. Reads follow ix_memories_needs_embedding (created_at).
 */
@Injectable()
export class EmbeddingBackfillRepository extends TenantScopedRepository {
  protected readonly table = 'memories';

  /** The next `limit` flagged memories after the cursor (created_at, id), oldest first; deleted ones are skipped. */
  async pending(em: DbHandle, scope: OperatorScope, limit: number, after: { cursor: string; id: string } | null): Promise<PendingEmbedding[]> {
    return this.scoped(em, scope, PENDING_ROW, (t) => sql`
      SELECT id, content, created_at::text AS cursor FROM memories
      WHERE ${t()} AND needs_embedding AND status <> 'deleted'
        ${after === null ? raw('') : sql`AND (created_at, id) > (${after.cursor}::timestamptz, ${after.id}::uuid)`}
      ORDER BY created_at, id
      LIMIT ${limit}`);
  }

  async countPending(em: DbHandle, scope: OperatorScope): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`
      SELECT count(*)::int AS n FROM memories WHERE ${t()} AND needs_embedding AND status <> 'deleted'`);
    return row.n;
  }

  /**
   * Stores vectors (null: the text had nothing to embed) and clears the flag. Only rows still
   * flagged change, so a second backfill racing this one cannot overwrite newer work.
   */
  async store(em: DbHandle, scope: AnyScope, items: { id: string; embedding: number[] | null }[]): Promise<number> {
    if (items.length === 0) return 0;
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH changed AS (
        UPDATE memories m SET embedding = x.embedding, needs_embedding = false
        FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS x(id uuid, embedding real[])
        WHERE ${t('m')} AND m.id = x.id AND m.needs_embedding
        RETURNING m.id)
      SELECT id FROM changed`);
    return rows.length;
  }
}
