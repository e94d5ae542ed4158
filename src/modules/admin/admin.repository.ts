import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { raw, sql } from 'src/common/db/sql';
import { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { episodeText } from 'src/compiler/episode-text';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import {
  type EpisodeItem,
  type EpisodeRow,
  type JsonObject,
  type MemoryItem,
  type MemoryRow,
  type ReceiptItem,
  type ReceiptRow,
  TIMESTAMP_SQL_FORMAT,
} from './export-document';
import { parseLossless } from './python-json';

/** Where the previous page ended: the last row's created_at (as exported text) and tiebreaker. */
export interface PageCursor {
  createdAt: string;
  key: string;
}

interface EpisodeSelect extends Omit<EpisodeItem, 'payload' | 'metadata' | 'provenance'> {
  payload: string;
  metadata: string;
  provenance: string;
  seq: string;
}

interface MemorySelect extends Omit<MemoryItem, 'metadata'> {
  metadata: string;
}

/** Rows per INSERT: keeps the one JSON parameter of a statement to a few megabytes. */
const INSERT_CHUNK = 500;

const ts = (column: string) => sql`to_char(${raw(column)} AT TIME ZONE 'UTC', ${TIMESTAMP_SQL_FORMAT})`;

/**
 * Operator SQL of export and import over episodes, memories and receipts. They move whole
 * subjects in bulk, so they read and write those tables directly (still through the tenant-scoped
 * base) rather than row by row through the owning modules (docs/architecture.md, "Known
 * departures"); the job listing and the tenant audit go through the owners' services. Timestamps are read as microsecond text and
 * jsonb as text parsed losslessly, so an export holds exactly what is stored.
 */
@Injectable()
export class AdminRepository extends TenantScopedRepository {
  protected readonly table = 'episodes/memories/receipts';

  /** Distinct tenants holding rows of the subject, at most two (enough to tell none, one, many). */
  async subjectTenants(em: DbHandle, scope: OperatorScope, subjectId: string): Promise<(string | null)[]> {
    const rows = await this.scoped<{ tenant_id: string | null }>(em, scope, (t) => sql`
      SELECT tenant_id FROM (
        (SELECT DISTINCT tenant_id FROM episodes WHERE ${t()} AND subject_id = ${subjectId} LIMIT 2)
        UNION
        (SELECT DISTINCT tenant_id FROM memories WHERE ${t()} AND subject_id = ${subjectId} LIMIT 2)
      ) s LIMIT 2`);
    return rows.map((r) => r.tenant_id);
  }

  /**
   * One page of a subject's episodes in time order (created_at, then insertion order). ORDER BY
   * names the table's columns: the output columns of the same names are text.
   */
  async episodePage(em: DbHandle, scope: OperatorScope, subjectId: string, after: PageCursor | null, limit: number, maxBytes: number): Promise<{ items: EpisodeItem[]; cursor: PageCursor | null }> {
    // Rows are added while those before them total under maxBytes of JSON text (at least one):
    // sizes are measured on the candidates before any payload is fetched.
    const rows = await this.scoped<EpisodeSelect>(em, scope, (t) => sql`
      WITH candidates AS (
        SELECT c.id, c.created_at, c.seq,
          octet_length(c.payload::text) + octet_length(coalesce(c.metadata, '{}'::jsonb)::text) + octet_length(coalesce(c.provenance, '{}'::jsonb)::text) AS bytes
        FROM episodes c
        WHERE ${t('c')} AND c.subject_id = ${subjectId}
          ${after ? sql`AND (c.created_at, c.seq) > (${after.createdAt}::timestamptz, ${after.key}::bigint)` : raw('')}
        ORDER BY c.created_at, c.seq
        LIMIT ${limit}
      ), budgeted AS (
        SELECT id, sum(bytes) OVER (ORDER BY created_at, seq ROWS UNBOUNDED PRECEDING) - bytes AS before FROM candidates
      )
      SELECT e.id, e.tenant_id, e.subject_id, e.session_id, e.source, e.type,
        e.payload::text AS payload, e.metadata::text AS metadata, e.provenance::text AS provenance,
        ${ts('e.created_at')} AS created_at, ${ts('e.last_compiled_at')} AS last_compiled_at, e.seq::text AS seq
      FROM budgeted b JOIN episodes e ON e.id = b.id
      WHERE ${t('e')} AND b.before < ${maxBytes}
      ORDER BY e.created_at, e.seq`);
    const items = rows.map(({ payload, metadata, provenance, seq: _seq, ...rest }) => ({
      ...rest,
      payload: parseLossless(payload) as JsonObject,
      metadata: parseLossless(metadata) as JsonObject,
      provenance: parseLossless(provenance) as JsonObject,
    }));
    const last = rows[rows.length - 1];
    return { items, cursor: last ? { createdAt: last.created_at, key: last.seq } : null };
  }

  /** One page of a subject's memories, ordered by (created_at, id). */
  async memoryPage(em: DbHandle, scope: OperatorScope, subjectId: string, after: PageCursor | null, limit: number): Promise<{ items: MemoryItem[]; cursor: PageCursor | null }> {
    const rows = await this.scoped<MemorySelect>(em, scope, (t) => sql`
      SELECT id, tenant_id, subject_id, kind, content, summary, confidence,
        ${ts('valid_from')} AS valid_from, ${ts('valid_to')} AS valid_to,
        source_episode_ids::text[] AS source_episode_ids, metadata::text AS metadata, status, embedding,
        attribute_key, superseded_by::text AS superseded_by,
        ${ts('created_at')} AS created_at, ${ts('updated_at')} AS updated_at, sensitivity_labels::text[] AS sensitivity_labels
      FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${subjectId}
        ${after ? sql`AND (m.created_at, m.id) > (${after.createdAt}::timestamptz, ${after.key}::uuid)` : raw('')}
      ORDER BY m.created_at, m.id
      LIMIT ${limit}`);
    const items = rows.map(({ metadata, ...rest }) => ({ ...rest, metadata: parseLossless(metadata) as JsonObject }));
    const last = rows[rows.length - 1];
    return { items, cursor: last ? { createdAt: last.created_at, key: last.id } : null };
  }

  /**
   * One page of the receipts a subject holds, by (id, tenant): each body exactly as stored (the
   * signed text's values) with the tenant holding the row, which after an import into another
   * tenant is not the body's own `tenant_id`. Pages stop at maxBytes of body text (at least one).
   */
  async receiptPage(em: DbHandle, scope: OperatorScope, subjectId: string, after: PageCursor | null, limit: number, maxBytes: number): Promise<{ items: ReceiptItem[]; cursor: PageCursor | null }> {
    const rows = await this.scoped<{ id: string; tenant_id: string | null; body: string }>(em, scope, (t) => sql`
      WITH candidates AS (
        SELECT c.id, c.tenant_id, octet_length(c.body) AS bytes
        FROM receipts c
        WHERE ${t('c')} AND c.subject_id = ${subjectId}
          ${after ? sql`AND (c.id, coalesce(c.tenant_id, '')) > (${after.key}::varchar, ${after.createdAt}::varchar)` : raw('')}
        ORDER BY c.id, coalesce(c.tenant_id, '')
        LIMIT ${limit}
      ), budgeted AS (
        SELECT id, tenant_id, sum(bytes) OVER (ORDER BY id, coalesce(tenant_id, '') ROWS UNBOUNDED PRECEDING) - bytes AS before FROM candidates
      )
      SELECT r.id, r.tenant_id, r.body
      FROM budgeted b JOIN receipts r ON r.id = b.id AND r.tenant_id IS NOT DISTINCT FROM b.tenant_id AND r.subject_id = ${subjectId}
      WHERE ${t('r')} AND b.before < ${maxBytes}
      ORDER BY r.id, coalesce(r.tenant_id, '')`);
    const items = rows.map((r) => ({ tenant_id: r.tenant_id, receipt: JSON.parse(r.body) as JsonObject }));
    const last = rows[rows.length - 1];
    // The cursor's two fields carry (tenant, id) here: receipts have no created_at order to keep.
    return { items, cursor: last ? { createdAt: last.tenant_id ?? '', key: last.id } : null };
  }

  /**
   * Inserts imported receipts under `subjectId`, each in its own tenant. Receipts are immutable:
   * this only inserts. One already held by the subject with the same body is left as it is (a
   * re-import is a no-op); an id the tenant already holds with another body is refused (409)
   * before anything is written. Returns how many rows were added.
   */
  async insertReceipts(em: DbHandle, subjectId: string, rows: readonly ReceiptRow[]): Promise<number> {
    let added = 0;
    for (const [tenantId, group] of byTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        const chunk = JSON.stringify(group.slice(i, i + INSERT_CHUNK).map((r) => ({ id: r.id, body: r.body_json })));
        const clashes = await this.scoped<{ id: string }>(em, TenantScope.ofStored(tenantId), (t) => sql`
          SELECT DISTINCT r.id FROM receipts r
          JOIN jsonb_to_recordset(${chunk}::jsonb) AS i(id varchar, body text) ON r.id = i.id
          WHERE ${t('r')} AND r.tenant_id IS NOT DISTINCT FROM ${tenantId}::varchar AND r.body::jsonb <> i.body::jsonb
          ORDER BY r.id`);
        if (clashes.length > 0) {
          throw new AppError(
            ErrorCode.Conflict,
            `Receipt ${clashes[0].id} already exists with a different body (${clashes.length} such receipt(s)); receipts are immutable and are never overwritten`,
            { receipt_ids: clashes.map((c) => c.id) },
          );
        }
        const inserted = await this.stamped<{ n: number }>(em, TenantScope.ofStored(tenantId), (tenant) => sql`
          WITH added AS (
            INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
            SELECT i.id, ${tenant}, ${subjectId}, i.body::jsonb->>'mode', i.body::jsonb->>'parent_receipt_id', i.body,
              (i.body::jsonb->>'created_at')::timestamptz
            FROM jsonb_to_recordset(${chunk}::jsonb) AS i(id varchar, body text)
            ON CONFLICT DO NOTHING
            RETURNING 1
          )
          SELECT count(*)::int AS n FROM added`);
        added += inserted[0].n;
      }
    }
    return added;
  }

  /** Ids of the given ones that already exist, in any tenant (ids are global primary keys). */
  async existingIds(em: DbHandle, scope: OperatorScope, episodeIds: string[], memoryIds: string[]): Promise<{ episodes: string[]; memories: string[] }> {
    const find = async (table: string, ids: string[]) => {
      if (ids.length === 0) return [];
      const rows = await this.scoped<{ id: string }>(em, scope, (t) =>
        sql`SELECT id FROM ${raw(table)} WHERE ${t()} AND id = ANY(${ids}::uuid[]) ORDER BY id`);
      return rows.map((r) => r.id);
    };
    return { episodes: await find('episodes', episodeIds), memories: await find('memories', memoryIds) };
  }

  /**
   * Inserts rows as given (ids, timestamps, compiled state). Each row keeps its own tenant: rows
   * are grouped by tenant and each group is stamped through its scope. `content_text` is derived
   * from the payload as at ingestion.
   */
  async insertEpisodes(em: DbHandle, rows: readonly EpisodeRow[]): Promise<void> {
    for (const [tenantId, group] of byTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        const chunk = group.slice(i, i + INSERT_CHUNK).map((r, ord) => ({
          ...r,
          content_text: episodeText(JSON.parse(r.payload_json)),
          ord,
        }));
        await this.stamped(em, TenantScope.ofStored(tenantId), (tenant) => sql`
          INSERT INTO episodes (id, tenant_id, subject_id, session_id, source, type, payload, metadata, provenance, content_text, created_at, last_compiled_at)
          SELECT e.id, ${tenant}, e.subject_id, e.session_id, e.source, e.type, e.payload_json::jsonb, e.metadata_json::jsonb,
            e.provenance_json::jsonb, e.content_text, e.created_at, e.last_compiled_at
          FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS e(
            id uuid, subject_id varchar, session_id varchar, source varchar, type varchar, payload_json text, metadata_json text,
            provenance_json text, content_text text, created_at timestamptz, last_compiled_at timestamptz, ord bigint)
          ORDER BY e.ord`);
      }
    }
  }

  async insertMemories(em: DbHandle, rows: readonly MemoryRow[]): Promise<void> {
    for (const [tenantId, group] of byTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        // An empty embedding is no embedding (the pgvector mirror column cannot hold zero dimensions).
        const chunk = group.slice(i, i + INSERT_CHUNK).map((r, ord) => ({ ...r, embedding: r.embedding?.length ? r.embedding : null, ord }));
        await this.stamped(em, TenantScope.ofStored(tenantId), (tenant) => sql`
          INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids,
            metadata, status, attribute_key, superseded_by, embedding, created_at, updated_at, sensitivity_labels)
          SELECT m.id, ${tenant}, m.subject_id, m.kind, m.content, m.summary, m.confidence, m.valid_from, m.valid_to, m.source_episode_ids,
            m.metadata_json::jsonb, m.status, m.attribute_key, m.superseded_by, m.embedding, m.created_at, m.updated_at,
            coalesce(m.sensitivity_labels, '{}')
          FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS m(
            id uuid, subject_id varchar, kind varchar, content text, summary text, confidence double precision,
            valid_from timestamptz, valid_to timestamptz, source_episode_ids uuid[], metadata_json text, status varchar,
            attribute_key varchar, superseded_by uuid, embedding real[], created_at timestamptz, updated_at timestamptz,
            sensitivity_labels varchar[], ord bigint)
          ORDER BY m.ord`);
      }
    }
  }
}

function byTenant<T extends { tenant_id: string | null }>(rows: readonly T[]): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const row of rows) {
    const group = groups.get(row.tenant_id);
    if (group) group.push(row);
    else groups.set(row.tenant_id, [row]);
  }
  return groups;
}
