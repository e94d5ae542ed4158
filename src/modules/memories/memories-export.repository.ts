import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { ID_ROW, NO_ROWS, rowOf } from 'src/common/db/row-shape';
import { isoformatUtc, raw, sql } from 'src/common/db/sql';
import { byStoredTenant, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { MEMORY_EXPORT_ROW, type MemoryExportRow } from 'src/modules/memories/memory.entity';

/** Where an export page of memories ended: the last row's created_at (as exported text) and id. */
export interface MemoryExportCursor {
  createdAt: string;
  id: string;
}

const TENANT_ROW = rowOf<{ tenant_id: string | null }>({ tenant_id: true });

/** Rows per INSERT: keeps the one JSON parameter of a statement to a few megabytes. */
const INSERT_CHUNK = 500;

/**
 * The memories room's SQL for the operator's export and import (admin, through
 * MemoriesBulkService, which takes the subject's compile lock for the import): whole subjects
 * moved in set-based pages and inserts, rows as stored — metadata as its text, timestamps to the
 * microsecond, ids, tenants, supersession and embeddings kept.
 */
@Injectable()
export class MemoriesExportRepository extends TenantScopedRepository {
  protected readonly table = 'memories';

  /** Distinct tenants holding memories of the subject, at most two (enough to tell none, one, many). */
  async subjectTenants(em: DbHandle, scope: OperatorScope, subjectId: string): Promise<(string | null)[]> {
    const rows = await this.scoped(em, scope, TENANT_ROW, (t) => sql`SELECT DISTINCT tenant_id FROM memories WHERE ${t()} AND subject_id = ${subjectId} LIMIT 2`);
    return rows.map((r) => r.tenant_id);
  }

  /** One page of a subject's memories, ordered by (created_at, id). */
  async exportPage(em: DbHandle, scope: OperatorScope, subjectId: string, after: MemoryExportCursor | null, limit: number): Promise<{ rows: MemoryExportRow[]; next: MemoryExportCursor | null }> {
    const rows = await this.scoped(em, scope, MEMORY_EXPORT_ROW, (t) => sql`
      SELECT id, tenant_id, subject_id, kind, content, summary, confidence,
        ${isoformatUtc('valid_from')} AS valid_from, ${isoformatUtc('valid_to')} AS valid_to,
        source_episode_ids::text[] AS source_episode_ids, metadata::text AS metadata, status, embedding,
        attribute_key, superseded_by::text AS superseded_by,
        ${isoformatUtc('created_at')} AS created_at, ${isoformatUtc('updated_at')} AS updated_at, sensitivity_labels::text[] AS sensitivity_labels
      FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${subjectId}
        ${after ? sql`AND (m.created_at, m.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)` : raw('')}
      ORDER BY m.created_at, m.id
      LIMIT ${limit}`);
    const last = rows[rows.length - 1];
    return { rows, next: last ? { createdAt: last.created_at, id: last.id } : null };
  }

  /** Those of the given ids that exist, in any tenant of the scope (ids are global primary keys). */
  async existingIds(em: DbHandle, scope: OperatorScope, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`SELECT id FROM memories WHERE ${t()} AND id = ANY(${ids}::uuid[]) ORDER BY id`);
    return rows.map((r) => r.id);
  }

  /**
   * Inserts imported rows as given (ids, timestamps, supersession, embeddings), each in its own
   * tenant: rows are grouped by tenant and each group is stamped through its scope.
   */
  async insertImported(em: DbHandle, rows: readonly MemoryExportRow[]): Promise<void> {
    for (const [tenantId, group] of byStoredTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        // An empty embedding is no embedding (the pgvector mirror column cannot hold zero dimensions).
        const chunk = group.slice(i, i + INSERT_CHUNK).map((r, ord) => ({ ...r, embedding: r.embedding?.length ? r.embedding : null, ord }));
        await this.stamped(em, TenantScope.ofStored(tenantId), NO_ROWS, (tenant) => sql`
          INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids,
            metadata, status, attribute_key, superseded_by, embedding, created_at, updated_at, sensitivity_labels)
          SELECT m.id, ${tenant}, m.subject_id, m.kind, m.content, m.summary, m.confidence, m.valid_from, m.valid_to, m.source_episode_ids,
            m.metadata::jsonb, m.status, m.attribute_key, m.superseded_by, m.embedding, m.created_at, m.updated_at,
            coalesce(m.sensitivity_labels, '{}')
          FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS m(
            id uuid, subject_id varchar, kind varchar, content text, summary text, confidence double precision,
            valid_from timestamptz, valid_to timestamptz, source_episode_ids uuid[], metadata text, status varchar,
            attribute_key varchar, superseded_by uuid, embedding real[], created_at timestamptz, updated_at timestamptz,
            sensitivity_labels varchar[], ord bigint)
          ORDER BY m.ord`);
      }
    }
  }
}
