import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { notSnapshotSubject } from 'src/common/auth/reserved-subjects';
import { lockSubject } from 'src/common/db/advisory-locks';
import { SUBJECT_KEY_ROW, SubjectKey } from 'src/common/db/subject-key';
import { keysetPageResult, keysetPageShape, keysetPageSql } from 'src/common/db/keyset-page';
import { COUNT, ID_ROW, NO_ROWS, rowOf, RowShape } from 'src/common/db/row-shape';
import { bestTextMatchIds, copiedValues, exactCosine, join, raw, sql, SqlFragment } from 'src/common/db/sql';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import type { VectorMode } from 'src/db/vector-support';
import { MemoryCursor, MemoryPageOptions } from './dto/memory.dto';
import { columnList, recordsetColumns } from 'src/db/column-types';
import { MEMORY_COLUMNS, MEMORY_ROW, MEMORY_TEXT_TIES, MEMORY_TIES, MemoryEntity } from 'src/modules/memories/memory.entity';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { asOfCtes, asOfWith } from './memories-as-of.sql';
import type { EpisodeIdMap, RestoreMarks } from 'src/modules/episodes/subject-copy.types';
import type { MemoryKind, MemoryStatus } from 'src/compiler/memory-kinds';

/** Microseconds from the newest row to now() (bigint as text), null without rows. */
const AGE_ROW = rowOf<{ us: string | null }>({ us: true });

/** A memory to insert: the row's own columns, plus what only an insert carries (origin defaults to `compile`, labels to none). */
export type NewMemory = Pick<
  MemoryEntity,
  | 'id' | 'subject_id' | 'kind' | 'content' | 'summary' | 'confidence' | 'valid_from' | 'valid_to' | 'source_episode_ids' | 'metadata' | 'status'
  | 'attribute_key' | 'superseded_by' | 'needs_embedding' | 'embedding'
> &
  /** sensitivity_labels normalised (sensitivity-labels.ts). */
  Partial<Pick<MemoryEntity, 'origin' | 'idempotency_key' | 'sensitivity_labels'>>;

export interface Supersession {
  id: string;
  valid_to: Date;
  superseded_by: string | null;
}

export interface MemoryFilter {
  /** Only these kinds. */
  kinds?: readonly MemoryKind[];
  /** None of these kinds. */
  excludeKinds?: readonly MemoryKind[];
  limit?: number;
  /** Also read `embedding` (real[] or null); off by default because vectors are large. */
  withEmbedding?: boolean;
  /** As-of read (memories-as-of.ts): the memories as they stood at this instant. */
  asOf?: Date | null;
}

export type ScoredMemoryRow = MemoryRow & { score: number };

/**
 * What scoring a semantic pool needs, and no more: parsing full rows (dates, uuid arrays, JSON)
 * for hundreds of candidates cost more than scoring them. `created_ms` keeps microseconds as a
 * fraction, so ties order exactly as `ORDER BY created_at` does.
 */
export interface SemanticPoolRow {
  id: string;
  content: string;
  created_ms: number;
}

const COLUMNS = columnList(MEMORY_COLUMNS);
const SCORED_ROW = MEMORY_ROW.with<{ score: number }>({ score: true });
const SEMANTIC_POOL_ROW = rowOf<SemanticPoolRow>({ id: true, content: true, created_ms: true });
/** A timeline page row as JSON text (MEMORY_JSON). */
const JSON_ROW = rowOf<{ json: string }>({ json: true });

/**
 * What a subject copy writes: every column a read returns and the embedding (MEMORY_COLUMNS),
 * not the idempotency key (a copy would clash with its original); embedding_vec is generated.
 */
const COPIED_COLUMNS = [...MEMORY_COLUMNS, 'embedding'] as const;

/** The typed columns of the recordsets the batch insert and supersession read their rows from. */
const INSERT_RECORD = raw(
  recordsetColumns(MemoryEntity, [
    'id', 'subject_id', 'kind', 'content', 'summary', 'confidence', 'valid_from', 'valid_to', 'source_episode_ids', 'metadata', 'status',
    'attribute_key', 'superseded_by', 'embedding', 'needs_embedding', 'origin', 'idempotency_key', 'sensitivity_labels',
  ] satisfies (keyof NewMemory)[]),
);
const SUPERSESSION_RECORD = raw(recordsetColumns(MemoryEntity, ['id', 'valid_to', 'superseded_by'] satisfies (keyof Supersession)[]));

/** A timestamp as JavaScript's `Date.toISOString()` writes it (milliseconds, truncated like a Date). */
const isoJson = (col: string) => `'"' || to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`;

/**
 * A memory row `x` as the JSON text of its wire shape: `toMemoryDto` (dto/memory.dto.ts) written
 * by PostgreSQL, field for field and in the same order, so the two cannot be told apart by a
 * JSON parser (`test/e2e/timeline-json.e2e-spec.ts` compares them). JSON values stored as
 * jsonb keep PostgreSQL's spacing.
 */
const MEMORY_JSON = raw(
  [
    `'{"id":' || to_json(x.id)::text`,
    `',"subject_id":' || to_json(x.subject_id)::text`,
    `',"kind":' || to_json(x.kind)::text`,
    `',"content":' || to_json(x.content)::text`,
    `',"summary":' || to_json(coalesce(x.summary, ''))::text`,
    `',"confidence":' || to_json(x.confidence)::text`,
    `',"valid_from":' || ${isoJson('x.valid_from')}`,
    `',"valid_to":' || coalesce(${isoJson('x.valid_to')}, 'null')`,
    `',"source_episode_ids":' || coalesce(to_json(x.source_episode_ids)::text, '[]')`,
    `',"metadata":' || coalesce(x.metadata::text, '{}')`,
    `',"status":' || to_json(x.status)::text`,
    `',"origin":' || to_json(x.origin)::text`,
    `',"created_at":' || ${isoJson('x.created_at')}`,
    `',"updated_at":' || ${isoJson('x.updated_at')}`,
    `',"sensitivity_labels":' || coalesce(to_json(x.sensitivity_labels)::text, '[]')`,
    // Only a superseded memory carries the key, as toMemoryDto writes it.
    `coalesce(',"superseded_by":' || to_json(x.superseded_by)::text, '') || '}'`,
  ].join(' || '),
);

function columns(alias: string, withEmbedding = false): SqlFragment {
  return raw(columnList(withEmbedding ? [...MEMORY_COLUMNS, 'embedding'] : MEMORY_COLUMNS, alias));
}

/** Rows per INSERT statement: a 1536-dimension vector is ~20 kB of parameter text. */
const INSERT_CHUNK = 200;

@Injectable()
export class MemoriesRepository extends TenantScopedRepository {
  protected readonly table = 'memories';

  /**
   * Serialises compiles (and deletion) of one subject across connections and processes until
   * the transaction ends. The key is the tenant and subject, so tenants never wait on each other.
   */
  async lockSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<void> {
    await lockSubject(em, scope.tenantId, subjectId);
  }

  /**
   * Stores memories in the given order. `created_at` advances by one microsecond per row so
   * that "newest first" lists keep compilation order even within one transaction. A row whose
   * idempotency key the tenant already used is not stored (and not returned).
   */
  async insertMany(em: DbHandle, scope: TenantScope, rows: NewMemory[]): Promise<MemoryRow[]> {
    const out: MemoryRow[] = [];
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const chunk = rows.slice(start, start + INSERT_CHUNK).map((r, i) => ({ ...r, ord: start + i }));
      const inserted = await this.stamped(em, scope, MEMORY_ROW, (tenantId) => sql`
        INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids,
          metadata, status, attribute_key, superseded_by, embedding, needs_embedding, origin, idempotency_key, sensitivity_labels, created_at, updated_at)
        SELECT r.id, ${tenantId}, r.subject_id, r.kind, r.content, r.summary, r.confidence, r.valid_from, r.valid_to, r.source_episode_ids,
          r.metadata, r.status, r.attribute_key, r.superseded_by, r.embedding, r.needs_embedding, coalesce(r.origin, 'compile'), r.idempotency_key,
          coalesce(r.sensitivity_labels, '{}'), now() + make_interval(secs => r.ord / 1e6), now() + make_interval(secs => r.ord / 1e6)
        FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS r(${INSERT_RECORD}, ord int)
        ORDER BY r.ord
        ON CONFLICT ((coalesce(tenant_id, '')), idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING ${raw(COLUMNS)}`);
      const order = new Map(chunk.map((r) => [r.id, r.ord]));
      out.push(...inserted.sort((a, b) => order.get(a.id)! - order.get(b.id)!));
    }
    return out;
  }

  /** One memory in scope; `forUpdate` locks its row until the transaction ends. */
  async findById(em: DbHandle, scope: TenantScope, id: string, opts: { forUpdate?: boolean } = {}): Promise<MemoryRow | null> {
    const rows = await this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      SELECT ${columns('m')} FROM memories m WHERE ${t('m')} AND m.id = ${id}
      ${opts.forUpdate === true ? raw('FOR UPDATE') : raw('')}`);
    return rows[0] ?? null;
  }

  /**
   * The memory the tenant stored under this idempotency key. NULL-tenant rows are matched only
   * in single-tenant mode, like the unique index that treats NULL as ''.
   */
  async findByIdempotencyKey(em: DbHandle, scope: TenantScope, key: string): Promise<MemoryRow | null> {
    const rows = await this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      SELECT ${columns('m')} FROM memories m
      WHERE ${t('m')} AND ${scope.keyOwner('m')} AND m.idempotency_key = ${key}`);
    return rows[0] ?? null;
  }

  /**
   * The memory and every earlier version it replaced (rows whose `superseded_by` leads to it),
   * target first. Bounded: a chain longer than `limit` is cut (only a pathological history
   * gets there; forgetting again continues with the rest).
   */
  async versionChain(em: DbHandle, scope: TenantScope, id: string, limit: number): Promise<string[]> {
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH RECURSIVE chain(id, depth) AS (
        SELECT m.id, 0 FROM memories m WHERE ${t('m')} AND m.id = ${id}
        UNION
        SELECT m.id, c.depth + 1 FROM memories m JOIN chain c ON m.superseded_by = c.id
        WHERE ${t('m')} AND c.depth < ${limit})
      SELECT id FROM chain ORDER BY depth LIMIT ${limit}`);
    return rows.map((r) => r.id);
  }

  /**
   * Forgets memories for good but keeps their rows as tombstones: content, summary, metadata,
   * attribute key and vector are erased; id, subject, kind, times and supersession links stay,
   * so receipts and histories that cite them still resolve. Returns the rows changed.
   */
  async tombstone(em: DbHandle, scope: TenantScope, ids: string[]): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const changed = await this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      WITH changed AS (
        UPDATE memories m SET status = 'tombstoned', content = '', summary = '', metadata = '{}'::jsonb, attribute_key = NULL,
          embedding = NULL, needs_embedding = false, valid_to = coalesce(m.valid_to, now()), updated_at = now()
        WHERE ${t('m')} AND m.id = ANY(${ids}::uuid[]) AND m.status <> 'tombstoned'
        RETURNING ${columns('m')})
      SELECT * FROM changed`);
    // Forgetting is for good: the revision trigger has just copied the erased content into
    // memory_revisions (its AFTER trigger ran with the statement above), and so had every earlier
    // change. The history goes too, in a statement of its own so that it follows the trigger. An
    // as-of read from before shows the tombstone (not active), as if the memory had been deleted.
    await this.scoped(em, scope, NO_ROWS, (t) => sql`
      DELETE FROM memory_revisions r WHERE ${t('r')} AND r.memory_id = ANY(${ids}::uuid[])`);
    return changed;
  }

  /** Removes the rows (an operator's hard delete); returns how many. */
  async deleteByIds(em: DbHandle, scope: TenantScope, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH deleted AS (DELETE FROM memories WHERE ${t()} AND id = ANY(${ids}::uuid[]) RETURNING 1)
      SELECT count(*)::int AS n FROM deleted`);
    return rows[0].n;
  }

  /** Active memories only: a memory superseded meanwhile keeps its first supersession. */
  async supersede(em: DbHandle, scope: TenantScope, items: Supersession[]): Promise<number> {
    if (items.length === 0) return 0;
    const rows = await this.scoped(em, scope, ID_ROW, (t) => sql`
      WITH changed AS (
        UPDATE memories m SET status = 'superseded', valid_to = s.valid_to, superseded_by = s.superseded_by, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(items)}::jsonb) AS s(${SUPERSESSION_RECORD})
        WHERE ${t('m')} AND m.id = s.id AND m.status = 'active'
        RETURNING m.id)
      SELECT id FROM changed`);
    return rows.length;
  }

  /**
   * A subject's active memories, newest first (created_at, then id). The generic read for
   * compilation (conflict candidates) and context assembly (ranking candidates).
   */
  async activeForSubject(em: DbHandle, scope: TenantScope, subjectId: string, filter: MemoryFilter = {}): Promise<MemoryRow[]> {
    return this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      SELECT ${columns('m', filter.withEmbedding)} FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${subjectId} AND m.status = 'active' ${kindFilter(filter)}
      ORDER BY m.created_at DESC, m.id DESC
      ${filter.limit !== undefined ? sql`LIMIT ${filter.limit}` : raw('')}`);
  }

  /**
   * Active memories of these kinds whose content is one of `contents`, exactly: what a compile's
   * new drafts restate among the memories it does not read in full. Bounded like any read.
   */
  async activeWithContent(em: DbHandle, scope: TenantScope, subjectId: string, kinds: readonly MemoryKind[], contents: string[], limit: number): Promise<MemoryRow[]> {
    if (contents.length === 0) return [];
    return this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      SELECT ${columns('m')} FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${subjectId} AND m.status = 'active' AND m.kind = ANY(${[...kinds]}::varchar[])
        AND m.content = ANY(${contents}::text[])
      ORDER BY m.created_at DESC, m.id DESC
      LIMIT ${limit}`);
  }

  /**
   * One page of a subject's memories (any status) in time order (created_at, then id) after
   * `after`: at most `limit` rows, added while those before them total under `maxBytes` of
   * content, summary and metadata (so at least one). `more` tells whether rows remain.
   * `asOf`: each memory in the state it had then (memories-as-of.ts).
   */
  async page(em: DbHandle, scope: TenantScope, subjectId: string, opts: MemoryPageOptions): Promise<{ rows: MemoryRow[]; last: MemoryCursor | null; more: boolean }> {
    return this.pageOf(em, scope, subjectId, opts, MEMORY_ROW, columns('x'));
  }

  /**
   * The same page as `page`, each memory already in its wire shape as JSON text (MEMORY_JSON):
   * a large timeline costs the service no row parsing, Date objects or re-serialisation.
   */
  async pageJson(em: DbHandle, scope: TenantScope, subjectId: string, opts: MemoryPageOptions): Promise<{ rows: string[]; last: MemoryCursor | null; more: boolean }> {
    const page = await this.pageOf(em, scope, subjectId, opts, JSON_ROW, sql`${MEMORY_JSON} AS json`);
    return { ...page, rows: page.rows.map((r) => r.json) };
  }

  /** `select`: the output columns over alias `x`, as `shape` declares them. */
  private async pageOf<T extends object>(em: DbHandle, scope: TenantScope, subjectId: string, opts: MemoryPageOptions, shape: RowShape<T>, select: SqlFragment): Promise<{ rows: T[]; last: MemoryCursor | null; more: boolean }> {
    const rows = await this.scoped(em, scope, keysetPageShape(shape), (t) =>
      keysetPageSql(t, {
        // As of an instant, the views named `episodes` and `memories` shadow the tables for the whole statement.
        views: opts.asOf ? sql`${join(asOfCtes(opts.asOf), ', ')},` : raw(''),
        table: 'memories',
        key: { column: 'id', type: 'uuid' },
        bytes: raw(`octet_length(c.content) + octet_length(coalesce(c.summary, '')) + octet_length(coalesce(c.metadata, '{}'::jsonb)::text)`),
        where: [sql`c.subject_id = ${subjectId}`],
        after: opts.after ? { at: opts.after.at, key: opts.after.id } : null,
        limit: opts.limit,
        maxBytes: opts.maxBytes,
        select,
      }),
    );
    const page = keysetPageResult(rows);
    return { rows: page.rows, last: page.last ? { at: page.last.at, id: page.last.key } : null, more: page.more };
  }

  /** All of a subject's memories (any status) in time order: created_at, then id. */
  async listForSubject(em: DbHandle, scope: TenantScope, subjectId: string, filter: MemoryFilter & { statuses?: readonly MemoryStatus[] } = {}): Promise<MemoryRow[]> {
    return this.scoped(em, scope, MEMORY_ROW, (t) => sql`${asOfWith(filter.asOf ?? null)}
      SELECT ${columns('m', filter.withEmbedding)} FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${subjectId} ${kindFilter(filter)}
        ${filter.statuses ? sql`AND m.status = ANY(${[...filter.statuses]}::varchar[])` : raw('')}
      ORDER BY m.created_at, m.id
      ${filter.limit !== undefined ? sql`LIMIT ${filter.limit}` : raw('')}`);
  }

  /** The memories with these ids that exist in scope, in the order of `ids`. */
  async findByIds(em: DbHandle, scope: TenantScope, ids: string[], asOf: Date | null = null): Promise<MemoryRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.scoped(em, scope, MEMORY_ROW, (t) => sql`${asOfWith(asOf)}
      SELECT ${columns('m')} FROM memories m WHERE ${t('m')} AND m.id = ANY(${ids}::uuid[])`);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is MemoryRow => r !== undefined);
  }

  /**
   * Text search over active memories: case-insensitive substring of content, with `%` and `_`
   * literal (strpos, not LIKE). Newest first.
   */
  async searchText(em: DbHandle, scope: TenantScope, q: { subjectId: string; kind?: MemoryKind; text?: string; limit: number; asOf?: Date | null }): Promise<MemoryRow[]> {
    return this.scoped(em, scope, MEMORY_ROW, (t) => sql`${asOfWith(q.asOf ?? null)}
      SELECT ${columns('m')} FROM memories m
      WHERE ${t('m')} AND m.subject_id = ${q.subjectId} AND m.status = 'active'
        ${q.kind ? sql`AND m.kind = ${q.kind}` : raw('')}
        ${q.text ? sql`AND strpos(lower(m.content), lower(${q.text})) > 0` : raw('')}
      ORDER BY m.created_at DESC, m.id DESC
      LIMIT ${q.limit}`, { prepared: true });
  }

  /**
   * Active memories with an embedding of the query's dimensions, by cosine similarity to
   * `vector` (highest first, ties newest first). pgvector computes `<=>` on the generated
   * column; the fallback computes the same cosine exactly over real[] in double precision, so
   * both engines return the same memories in the same order.
   */
  async searchSemantic(
    em: DbHandle,
    scope: TenantScope,
    mode: VectorMode,
    q: { subjectId: string; kind?: MemoryKind; vector: number[]; limit: number; asOf?: Date | null },
  ): Promise<ScoredMemoryRow[]> {
    const similarity =
      mode === 'pgvector'
        ? sql`1 - (m.embedding_vec <=> ${JSON.stringify(q.vector)}::vector)`
        : exactCosine('m.embedding', q.vector);
    return this.scoped(em, scope, SCORED_ROW, (t) => sql`${asOfWith(q.asOf ?? null, { vector: mode === 'pgvector' })}
      SELECT * FROM (
        SELECT ${columns('m')}, (${similarity})::float8 AS score FROM memories m
        WHERE ${t('m')} AND m.subject_id = ${q.subjectId} AND m.status = 'active'
          AND m.embedding IS NOT NULL AND cardinality(m.embedding) = ${q.vector.length}
          ${q.kind ? sql`AND m.kind = ${q.kind}` : raw('')}
      ) ranked
      WHERE score IS NOT NULL AND score <> 'NaN'::float8
      ORDER BY score DESC, created_at DESC, id DESC
      LIMIT ${q.limit}`);
  }

  /**
   * Candidates for semantic search with a local embedding (see EmbeddingProvider.localSimilarity),
   * whose cosine is then computed in process: the active memories sharing a content word with
   * the query (full-text, best ts_rank first) and the newest ones. Bounded, so search costs the
   * same at 100 or 100,000 memories; under the lexical stub embedding a memory outside both
   * sets shares no word with the query and would score near 0 anyway.
   */
  async semanticPool(
    em: DbHandle,
    scope: TenantScope,
    q: { subjectId: string; kind?: MemoryKind; tsquery: string | null; matches: number; newest: number; asOf?: Date | null },
  ): Promise<SemanticPoolRow[]> {
    return this.scoped(em, scope, SEMANTIC_POOL_ROW, (t) => {
      const base = sql`${t('x')} AND x.subject_id = ${q.subjectId} AND x.status = 'active' ${q.kind ? sql`AND x.kind = ${q.kind}` : raw('')}`;
      const branches = [sql`(SELECT x.id FROM memories x WHERE ${base} ORDER BY x.created_at DESC, ${raw(MEMORY_TIES)} LIMIT ${q.newest})`];
      if (q.tsquery !== null) {
        branches.push(bestTextMatchIds('memories', base, q.tsquery, q.matches, MEMORY_TEXT_TIES));
      }
      return sql`${asOfWith(q.asOf ?? null)} SELECT m.id, m.content, (extract(epoch FROM m.created_at) * 1000)::float8 AS created_ms
        FROM memories m WHERE ${t('m')} AND m.id = ANY(ARRAY(${join(branches, ' UNION ')}))`;
    }, { prepared: true });
  }

  /** Replaces a memory's sensitivity labels; null when no such memory is in scope. */
  async setLabels(em: DbHandle, scope: TenantScope, id: string, labels: string[]): Promise<MemoryRow | null> {
    const rows = await this.scoped(em, scope, MEMORY_ROW, (t) => sql`
      WITH changed AS (
        UPDATE memories SET sensitivity_labels = ${labels}::varchar[], updated_at = now()
        WHERE ${t()} AND id = ${id}
        RETURNING ${raw(COLUMNS)})
      SELECT * FROM changed`);
    return rows[0] ?? null;
  }

  /** As EpisodesRepository.staleSubjects, by the newest memory update. */
  async staleSubjects(em: DbHandle, scope: OperatorScope, prefix: string, cutoff: Date): Promise<SubjectKey[]> {
    return this.scoped(em, scope, SUBJECT_KEY_ROW, (t) => sql`
      SELECT tenant_id, subject_id FROM memories
      WHERE ${t()} AND left(subject_id, length(${prefix})) = ${prefix} AND ${notSnapshotSubject()}
      GROUP BY tenant_id, subject_id HAVING max(updated_at) < ${cutoff}`);
  }

  /** When one of the subject's memories was last updated; null without memories. */
  async lastActivity(em: DbHandle, scope: AnyScope, subjectId: string): Promise<Date | null> {
    const [row] = await this.scoped(em, scope, rowOf<{ last_at: Date | null }>({ last_at: true }), (t) => sql`SELECT max(updated_at) AS last_at FROM memories WHERE ${t()} AND subject_id = ${subjectId}`);
    return row.last_at;
  }

  async deleteSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH deleted AS (DELETE FROM memories WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM deleted`);
    return rows[0].n;
  }

  /**
   * Microseconds from the subject's newest memory to the transaction's `now()` (bigint as text,
   * exact); null when it has none. A restore's time shift when the snapshot has no episode.
   */
  async newestAgeMicros(em: DbHandle, scope: AnyScope, subjectId: string): Promise<string | null> {
    const [row] = await this.scoped(em, scope, AGE_ROW, (t) => sql`
      SELECT round(extract(epoch FROM now() - max(created_at)) * 1000000)::bigint::text AS us
      FROM memories WHERE ${t()} AND subject_id = ${subjectId}`);
    return row?.us ?? null;
  }

  /**
   * Operator bulk work (snapshot create and restore): copies the subject's memories under
   * `target` in one set-based statement. Every memory gets a new id; `superseded_by` follows the
   * new ids and `source_episode_ids` the episode copies of the same copy (`episodeIds`, filled by
   * EpisodesRepository.copySubject), a reference outside the subject kept as it is; everything
   * else (tenant, timestamps, status, embeddings) is kept exactly. A restore (`marks`) shifts
   * every timestamp and records `restored_from_snapshot` and `original_memory_id` in the
   * metadata (overwriting an earlier restore's marks).
   */
  async copySubject(em: DbHandle, scope: AnyScope, source: string, target: string, episodeIds: EpisodeIdMap, marks?: RestoreMarks): Promise<number> {
    const emap = raw(episodeIds.table);
    const shift = marks ? sql` + ${marks.shiftMicros}::bigint * interval '1 microsecond'` : raw('');
    const metadata = marks
      ? sql`coalesce(x.metadata, '{}'::jsonb) || jsonb_build_object('restored_from_snapshot', ${marks.snapshotId}::text, 'original_memory_id', x.id)`
      : sql`x.metadata`;
    const values = copiedValues(COPIED_COLUMNS, 'x', {
      id: raw('mm.new_id'),
      subject_id: sql`${target}`,
      valid_from: sql`x.valid_from${shift}`,
      valid_to: sql`x.valid_to${shift}`,
      source_episode_ids: sql`ARRAY(SELECT coalesce(em.new_id, s.id) FROM unnest(x.source_episode_ids) WITH ORDINALITY AS s(id, ord)
        LEFT JOIN ${emap} em ON em.old_id = s.id ORDER BY s.ord)`,
      metadata,
      superseded_by: raw('coalesce(sup.new_id, x.superseded_by)'),
      created_at: sql`x.created_at${shift}`,
      updated_at: sql`x.updated_at${shift}`,
    });
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH mmap AS MATERIALIZED (
        SELECT id AS old_id, gen_random_uuid() AS new_id FROM memories WHERE ${t()} AND subject_id = ${source}
      ), copied AS (
        INSERT INTO memories (${raw(columnList(COPIED_COLUMNS))})
        SELECT ${values}
        FROM memories x JOIN mmap mm ON mm.old_id = x.id LEFT JOIN mmap sup ON sup.old_id = x.superseded_by
        WHERE ${t('x')}
        ${marks ? sql`ORDER BY x.created_at, x.id` : raw('')}
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM copied`);
    return row.n;
  }

  /** Contract "Tenant isolation" rule 4 (the operator's tenant audit): rows lacking a tenant_id. */
  async countNullTenant(em: DbHandle, scope: OperatorScope): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`SELECT count(*)::int AS n FROM memories WHERE ${t()} AND tenant_id IS NULL`);
    return row.n;
  }
}

function kindFilter(filter: MemoryFilter): SqlFragment {
  const parts: SqlFragment[] = [];
  if (filter.kinds) parts.push(sql`AND m.kind = ANY(${[...filter.kinds]}::varchar[])`);
  if (filter.excludeKinds) parts.push(sql`AND NOT (m.kind = ANY(${[...filter.excludeKinds]}::varchar[]))`);
  return parts.length === 0 ? raw('') : parts.length === 1 ? parts[0] : sql`${parts[0]} ${parts[1]}`;
}
