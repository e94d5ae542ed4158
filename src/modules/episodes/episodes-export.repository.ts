import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { ID_ROW, NO_ROWS, rowOf } from 'src/common/db/row-shape';
import { isoformatUtc, raw, sql } from 'src/common/db/sql';
import { byStoredTenant, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { EPISODE_EXPORT_ROW, type EpisodeExportRow } from 'src/modules/episodes/episode.entity';

/** Where an export page of episodes ended: the last row's created_at (as exported text) and insertion order. */
export interface EpisodeExportCursor {
  createdAt: string;
  seq: string;
}

const PAGE_ROW = EPISODE_EXPORT_ROW.with<{ seq: string }>({ seq: true });
const TENANT_ROW = rowOf<{ tenant_id: string | null }>({ tenant_id: true });

/** Rows per INSERT: keeps the one JSON parameter of a statement to a few megabytes. */
const INSERT_CHUNK = 500;

/**
 * The episodes room's SQL for the operator's export and import (admin, through
 * EpisodesBulkService): whole subjects moved in set-based pages and inserts, rows as stored —
 * jsonb as its text, timestamps to the microsecond, ids, tenants and compiled state kept.
 */
@Injectable()
export class EpisodesExportRepository extends TenantScopedRepository {
  protected readonly table = 'episodes';

  /** Distinct tenants holding episodes of the subject, at most two (enough to tell none, one, many). */
  async subjectTenants(em: DbHandle, scope: OperatorScope, subjectId: string): Promise<(string | null)[]> {
    const rows = await this.scoped(em, scope, TENANT_ROW, (t) => sql`SELECT DISTINCT tenant_id FROM episodes WHERE ${t()} AND subject_id = ${subjectId} LIMIT 2`);
    return rows.map((r) => r.tenant_id);
  }

  /**
   * One page of a subject's episodes in time order (created_at, then insertion order). Rows are
   * added while those before them total under maxBytes of JSON text (at least one): sizes are
   * measured on the candidates before any payload is fetched. ORDER BY names the table's
   * columns: the output columns of the same names are text.
   */
  async exportPage(em: DbHandle, scope: OperatorScope, subjectId: string, after: EpisodeExportCursor | null, limit: number, maxBytes: number): Promise<{ rows: EpisodeExportRow[]; next: EpisodeExportCursor | null }> {
    const rows = await this.scoped(em, scope, PAGE_ROW, (t) => sql`
      WITH candidates AS (
        SELECT c.id, c.created_at, c.seq,
          octet_length(c.payload::text) + octet_length(coalesce(c.metadata, '{}'::jsonb)::text) + octet_length(coalesce(c.provenance, '{}'::jsonb)::text) AS bytes
        FROM episodes c
        WHERE ${t('c')} AND c.subject_id = ${subjectId}
          ${after ? sql`AND (c.created_at, c.seq) > (${after.createdAt}::timestamptz, ${after.seq}::bigint)` : raw('')}
        ORDER BY c.created_at, c.seq
        LIMIT ${limit}
      ), budgeted AS (
        SELECT id, sum(bytes) OVER (ORDER BY created_at, seq ROWS UNBOUNDED PRECEDING) - bytes AS before FROM candidates
      )
      SELECT e.id, e.tenant_id, e.subject_id, e.session_id, e.source, e.type,
        e.payload::text AS payload, e.metadata::text AS metadata, e.provenance::text AS provenance,
        ${isoformatUtc('e.created_at')} AS created_at, ${isoformatUtc('e.last_compiled_at')} AS last_compiled_at, e.seq::text AS seq
      FROM budgeted b JOIN episodes e ON e.id = b.id
      WHERE ${t('e')} AND b.before < ${maxBytes}
      ORDER BY e.created_at, e.seq`);
    const last = rows[rows.length - 1];
    return { rows: rows.map(({ seq: _seq, ...row }) => row), next: last ? { createdAt: last.created_at, seq: last.seq } : null };
  }

  /** Those of the given ids that exist, in any tenant of the scope (ids are global primary keys). */
  async existingIds(em: DbHandle, scope: OperatorScope, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`SELECT id FROM episodes WHERE ${t()} AND id = ANY(${ids}::uuid[]) ORDER BY id`);
    return rows.map((r) => r.id);
  }

  /**
   * Inserts imported rows as given (ids, timestamps, compiled state), each in its own tenant: rows
   * are grouped by tenant and each group is stamped through its scope. `content_text` is the
   * payload's text as at ingestion, derived by the caller.
   */
  async insertImported(em: DbHandle, rows: readonly (EpisodeExportRow & { content_text: string })[]): Promise<void> {
    for (const [tenantId, group] of byStoredTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        const chunk = group.slice(i, i + INSERT_CHUNK).map((r, ord) => ({ ...r, ord }));
        await this.stamped(em, TenantScope.ofStored(tenantId), NO_ROWS, (tenant) => sql`
          INSERT INTO episodes (id, tenant_id, subject_id, session_id, source, type, payload, metadata, provenance, content_text, created_at, last_compiled_at)
          SELECT e.id, ${tenant}, e.subject_id, e.session_id, e.source, e.type, e.payload::jsonb, e.metadata::jsonb,
            e.provenance::jsonb, e.content_text, e.created_at, e.last_compiled_at
          FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS e(
            id uuid, subject_id varchar, session_id varchar, source varchar, type varchar, payload text, metadata text,
            provenance text, content_text text, created_at timestamptz, last_compiled_at timestamptz, ord bigint)
          ORDER BY e.ord`);
      }
    }
  }
}
