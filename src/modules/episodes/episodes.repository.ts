import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { notSnapshotSubject } from 'src/common/auth/reserved-subjects';
import { SUBJECT_KEY_ROW, SubjectKey } from 'src/common/db/subject-key';
import { keysetPageResult, keysetPageShape, keysetPageSql } from 'src/common/db/keyset-page';
import { COUNT, entityRow, NO_ROWS, rowOf, RowShape } from 'src/common/db/row-shape';
import { copiedValues, raw, sql, SqlFragment } from 'src/common/db/sql';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { withClause } from 'src/common/db/as-of';
import { EpisodeCursor, EpisodePageOptions } from './dto/episode.dto';
import { columnList, recordsetColumns } from 'src/db/column-types';
import { EPISODE_COLUMNS, EPISODE_DIGEST_ROW, EPISODE_ROW, EPISODE_WIRE_COLUMNS, EPISODE_WIRE_ROW, EpisodeEntity, NEW_EPISODE_COLUMNS } from 'src/modules/episodes/episode.entity';
import type { EpisodeDigestRow, EpisodeRow, EpisodeWireRow, NewEpisode } from 'src/modules/episodes/episode.entity';
import { episodesAsOfCte } from './episodes-as-of.sql';
import type { EpisodeIdMap, RestoreMarks } from './subject-copy.types';

/** What an insert reads back: the rest of the row is what the service sent (EpisodesService.insert). */
const INSERTED_ROW = entityRow(EpisodeEntity, ['id', 'tenant_id', 'created_at'] as const);
export type InsertedEpisode = typeof INSERTED_ROW.row;

/** Microseconds from the newest row to now() (bigint as text), null without rows. */
const AGE_ROW = rowOf<{ us: string | null }>({ us: true });

/**
 * Bytes of an episode as the service holds and writes it (payload, metadata and provenance as
 * JSON text). Measured on the server before rows are fetched, so a page can stop at a byte
 * budget however large single episodes are. The stored (possibly compressed) size would
 * undercount: a repetitive 1.5 MB payload is a few kB on disk.
 */
const episodeBytes = (a: string) => raw(`(octet_length(${a}.payload::text) + octet_length(coalesce(${a}.metadata, '{}'::jsonb)::text) + octet_length(coalesce(${a}.provenance, '{}'::jsonb)::text))`);

const COLUMNS_X = columnList(EPISODE_WIRE_COLUMNS, 'x');

/**
 * An episode row `x` as the JSON text of its wire shape: `toEpisodeDto` (dto/episode.dto.ts)
 * written by PostgreSQL, field for field and in the same order (`test/e2e/timeline-json.e2e-spec.ts`
 * compares them). JSON values stored as jsonb keep PostgreSQL's spacing.
 */
const EPISODE_JSON = raw(
  [
    `'{"id":' || to_json(x.id)::text`,
    `',"subject_id":' || to_json(x.subject_id)::text`,
    `',"session_id":' || coalesce(to_json(x.session_id)::text, 'null')`,
    `',"source":' || to_json(x.source)::text`,
    `',"type":' || to_json(x.type)::text`,
    `',"payload":' || x.payload::text`,
    `',"metadata":' || coalesce(x.metadata::text, '{}')`,
    `',"provenance":' || coalesce(x.provenance::text, '{}')`,
    `',"created_at":"' || to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`,
    `',"compiled":' || CASE WHEN x.last_compiled_at IS NULL THEN 'false' ELSE 'true' END || '}'`,
  ].join(' || '),
);

const COLUMNS = raw(columnList(EPISODE_COLUMNS));

/** A row read back by its idempotency key (the batch insert's retries). */
const KEYED_ROW = EPISODE_ROW.with<{ idempotency_key: string }>({ idempotency_key: true });

/** A timeline page row as JSON text (EPISODE_JSON). */
const JSON_ROW = rowOf<{ json: string }>({ json: true });

/** The batch insert's column list, its values from the recordset `e`, and the recordset's typed columns. */
const INSERT_COLUMNS = raw(columnList(NEW_EPISODE_COLUMNS));
const INSERT_VALUES = raw(columnList(NEW_EPISODE_COLUMNS, 'e'));
const INSERT_RECORD = raw(recordsetColumns(EpisodeEntity, NEW_EPISODE_COLUMNS));

/**
 * One element of the INSERT's recordset: the episode's columns and its position in the request
 * (`ORDER BY e.ord`). Written out field by field rather than spread (`{ ...row, ord }`): the
 * spread was a third of the cost of building the batch's parameter (bench/README.md "Batch
 * ingest cost"); the return type makes a column added to NewEpisode a compile error here.
 */
function recordOf(r: NewEpisode, ord: number): NewEpisode & { ord: number } {
  return {
    id: r.id,
    subject_id: r.subject_id,
    session_id: r.session_id,
    source: r.source,
    type: r.type,
    payload: r.payload,
    metadata: r.metadata,
    provenance: r.provenance,
    idempotency_key: r.idempotency_key,
    content_text: r.content_text,
    ord,
  };
}

@Injectable()
export class EpisodesRepository extends TenantScopedRepository {
  protected readonly table = 'episodes';

  /**
   * One multi-row INSERT for the whole batch. Rows whose idempotency key already exists in the
   * tenant are skipped (ON CONFLICT DO NOTHING); the caller reads those back by key. The rows
   * travel as one JSON parameter, so the text never changes and the statement is prepared once
   * per connection (ingest is the hottest write). Only what the database adds is returned: the
   * payloads are the service's own, and reading 100 of them back cost the database their jsonb
   * output and the service their parsing (bench/README.md "Batch ingest cost").
   */
  async insertMany(em: DbHandle, scope: TenantScope, rows: NewEpisode[]): Promise<InsertedEpisode[]> {
    return this.stamped(em, scope, INSERTED_ROW, (tenantId) => sql`
      INSERT INTO episodes (tenant_id, ${INSERT_COLUMNS})
      SELECT ${tenantId}, ${INSERT_VALUES}
      FROM jsonb_to_recordset(${JSON.stringify(rows.map(recordOf))}::jsonb) AS e(${INSERT_RECORD}, ord bigint)
      ORDER BY e.ord
      ON CONFLICT ((coalesce(tenant_id, '')), idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING id, tenant_id, created_at`, { prepared: true });
  }

  async findByIdempotencyKeys(em: DbHandle, scope: TenantScope, keys: string[]): Promise<(EpisodeRow & { idempotency_key: string })[]> {
    if (keys.length === 0) return [];
    // Keys are unique per tenant with NULL tenants counted as one, matching the unique index.
    return this.scoped(em, scope, KEYED_ROW, (t) => sql`
      SELECT ${COLUMNS}, idempotency_key FROM episodes
      WHERE ${t()} AND ${scope.keyOwner()} AND idempotency_key = ANY(${keys}::varchar[])`);
  }

  /** Episodes of a subject in time order (created_at, then insertion order); `asOf`: as they stood then (episodes-as-of.ts). */
  async listForSubject(em: DbHandle, scope: TenantScope, subjectId: string, opts: { limit?: number; uncompiledOnly?: boolean; asOf?: Date | null } = {}): Promise<EpisodeRow[]> {
    return this.scoped(em, scope, EPISODE_ROW, (t) => sql`${withClause(opts.asOf ? [episodesAsOfCte(opts.asOf)] : [])}
      SELECT ${COLUMNS} FROM episodes
      WHERE ${t()} AND subject_id = ${subjectId} ${opts.uncompiledOnly ? raw('AND last_compiled_at IS NULL') : raw('')}
      ORDER BY created_at, seq
      ${opts.limit ? sql`LIMIT ${opts.limit}` : raw('')}`);
  }

  /**
   * One page of a subject's episodes in time order (created_at, then insertion order) after
   * `after`: at most `limit` rows, and rows are added while those before them total under
   * `maxBytes` (episodeBytes), so a page exceeds it by at most its last row and always has at
   * least one. Sizes are measured on the page's candidate rows only, never on the whole subject.
   * `content_text` is not read (the wire shape does not carry it). Returns the rows, the cursor
   * of the last, and whether rows remain after it. `asOf`: as the subject stood then (episodes-as-of.ts).
   */
  async page(em: DbHandle, scope: TenantScope, subjectId: string, opts: EpisodePageOptions): Promise<{ rows: EpisodeWireRow[]; last: EpisodeCursor | null; more: boolean }> {
    return this.pageOf(em, scope, subjectId, opts, EPISODE_WIRE_ROW, raw(COLUMNS_X));
  }

  /**
   * The same page as `page`, each episode already in its wire shape as JSON text (EPISODE_JSON):
   * a large timeline costs the service no row parsing, Date objects or re-serialisation.
   */
  async pageJson(em: DbHandle, scope: TenantScope, subjectId: string, opts: EpisodePageOptions): Promise<{ rows: string[]; last: EpisodeCursor | null; more: boolean }> {
    const page = await this.pageOf(em, scope, subjectId, opts, JSON_ROW, sql`${EPISODE_JSON} AS json`);
    return { ...page, rows: page.rows.map((r) => r.json) };
  }

  /** `select`: the output columns over alias `x`, as `shape` declares them. */
  private async pageOf<T extends object>(em: DbHandle, scope: TenantScope, subjectId: string, opts: EpisodePageOptions, shape: RowShape<T>, select: SqlFragment): Promise<{ rows: T[]; last: EpisodeCursor | null; more: boolean }> {
    const rows = await this.scoped(em, scope, keysetPageShape(shape), (t) =>
      keysetPageSql(t, {
        // As of an instant, the view named `episodes` shadows the table for the whole statement.
        views: opts.asOf ? sql`${episodesAsOfCte(opts.asOf)},` : raw(''),
        table: 'episodes',
        key: { column: 'seq', type: 'bigint' },
        bytes: episodeBytes('c'),
        where: [sql`c.subject_id = ${subjectId}`],
        after: opts.after ? { at: opts.after.at, key: opts.after.seq } : null,
        limit: opts.limit,
        maxBytes: opts.maxBytes,
        select,
      }),
    );
    const page = keysetPageResult(rows);
    return { rows: page.rows, last: page.last ? { at: page.last.at, seq: page.last.key } : null, more: page.more };
  }

  /**
   * What health, SLA and handoff read of a subject's episodes: the newest `limit` episodes
   * (returned oldest first), without payloads, their text cut to `textChars` characters.
   */
  async digests(em: DbHandle, scope: TenantScope, subjectId: string, opts: { limit: number; textChars: number }): Promise<EpisodeDigestRow[]> {
    return this.scoped(em, scope, EPISODE_DIGEST_ROW, (t) => sql`
      SELECT id, session_id, source, type, content_text, created_at FROM (
        SELECT id, session_id, source, type, left(content_text, ${opts.textChars}) AS content_text, created_at, seq FROM episodes
        WHERE ${t()} AND subject_id = ${subjectId}
        ORDER BY created_at DESC, seq DESC
        LIMIT ${opts.limit}) recent
      ORDER BY created_at, seq`);
  }

  /**
   * Claims the subject's oldest uncompiled episodes for compilation: up to `limit` rows, added
   * while those before them total under `maxBytes` (so at least one). Row locks (SKIP LOCKED)
   * mean two concurrent compiles of one subject never take the same episode. The sizes are
   * measured on the candidates first (a window function cannot share a query with FOR UPDATE).
   */
  async lockUncompiled(em: DbHandle, scope: TenantScope, subjectId: string, bounds: { limit: number; maxBytes: number }): Promise<EpisodeWireRow[]> {
    return this.scoped(em, scope, EPISODE_WIRE_ROW, (t) => sql`
      SELECT ${raw(COLUMNS_X)} FROM episodes x
      WHERE ${t('x')} AND x.id IN (
        SELECT id FROM (
          SELECT id, sum(bytes) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - bytes AS before FROM (
            SELECT e.id, e.seq, ${episodeBytes('e')} AS bytes FROM episodes e
            WHERE ${t('e')} AND e.subject_id = ${subjectId} AND e.last_compiled_at IS NULL
            ORDER BY e.seq
            LIMIT ${bounds.limit}) c) b
        WHERE before < ${bounds.maxBytes})
      ORDER BY x.seq
      FOR UPDATE SKIP LOCKED`);
  }

  async markCompiled(em: DbHandle, scope: TenantScope, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.scoped(em, scope, NO_ROWS, (t) => sql`UPDATE episodes SET last_compiled_at = now() WHERE ${t()} AND id = ANY(${ids}::uuid[])`);
  }

  async findByIds(em: DbHandle, scope: TenantScope, ids: string[]): Promise<EpisodeRow[]> {
    if (ids.length === 0) return [];
    return this.scoped(em, scope, EPISODE_ROW, (t) => sql`SELECT ${COLUMNS} FROM episodes WHERE ${t()} AND id = ANY(${ids}::uuid[]) ORDER BY created_at, seq`);
  }

  async deleteSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH deleted AS (DELETE FROM episodes WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM deleted`);
    return row.n;
  }

  /**
   * (tenant, subject) pairs under `prefix` (compared with left(), so `%` and `_` are literal;
   * never snapshot copies) whose newest episode was created before `cutoff`: candidates of the
   * stale-subject cleanup (SubjectLifecycleService), which checks each again under its lock.
   */
  async staleSubjects(em: DbHandle, scope: OperatorScope, prefix: string, cutoff: Date): Promise<SubjectKey[]> {
    return this.scoped(em, scope, SUBJECT_KEY_ROW, (t) => sql`
      SELECT tenant_id, subject_id FROM episodes
      WHERE ${t()} AND left(subject_id, length(${prefix})) = ${prefix} AND ${notSnapshotSubject()}
      GROUP BY tenant_id, subject_id HAVING max(created_at) < ${cutoff}`);
  }

  /** When the subject's newest episode was created; null without episodes. */
  async lastActivity(em: DbHandle, scope: AnyScope, subjectId: string): Promise<Date | null> {
    const [row] = await this.scoped(em, scope, rowOf<{ last_at: Date | null }>({ last_at: true }), (t) => sql`SELECT max(created_at) AS last_at FROM episodes WHERE ${t()} AND subject_id = ${subjectId}`);
    return row.last_at;
  }

  /**
   * Microseconds from the subject's newest episode to the transaction's `now()` (bigint as text,
   * exact); null when it has none. A restore's time shift (RestoreMarks).
   */
  async newestAgeMicros(em: DbHandle, scope: AnyScope, subjectId: string): Promise<string | null> {
    const [row] = await this.scoped(em, scope, AGE_ROW, (t) => sql`
      SELECT round(extract(epoch FROM now() - max(created_at)) * 1000000)::bigint::text AS us
      FROM episodes WHERE ${t()} AND subject_id = ${subjectId}`);
    return row?.us ?? null;
  }

  /**
   * Operator bulk work (snapshot create and restore): copies the subject's episodes under
   * `target` in one set-based statement, each with a new id, everything else (tenant,
   * timestamps, compiled state) kept exactly; a restore (`marks`) shifts the timestamps and
   * records `restored_from_snapshot` and `original_episode_id` in the provenance. The old → new
   * ids stay in a temporary table dropped at commit (EpisodeIdMap) for the memories of the same
   * copy. Run in the caller's transaction.
   */
  async copySubject(em: DbHandle, scope: AnyScope, source: string, target: string, marks?: RestoreMarks): Promise<{ episodes: number; ids: EpisodeIdMap }> {
    // A name of our own per copy: two copies in one transaction never share a map.
    const ids: EpisodeIdMap = { table: `episode_id_map_${randomBytes(8).toString('hex')}` };
    const map = raw(ids.table);
    // DDL names no tenant-owned table, so there is no predicate to add (stamped, not scoped).
    await this.stamped(em, scope, NO_ROWS, () => sql`CREATE TEMP TABLE ${map} (old_id uuid PRIMARY KEY, new_id uuid NOT NULL) ON COMMIT DROP`);
    const provenance = marks
      ? sql`coalesce(e.provenance, '{}'::jsonb) || jsonb_build_object('restored_from_snapshot', ${marks.snapshotId}::text, 'original_episode_id', e.id)`
      : sql`e.provenance`;
    const shift = marks ? sql` + ${marks.shiftMicros}::bigint * interval '1 microsecond'` : raw('');
    // Every column a read returns (EPISODE_COLUMNS): not the idempotency key (a copy would clash
    // with its original) nor seq (numbered anew, in the original order).
    const values = copiedValues(EPISODE_COLUMNS, 'e', {
      id: raw('m.new_id'),
      subject_id: sql`${target}`,
      provenance,
      created_at: sql`e.created_at${shift}`,
      last_compiled_at: sql`e.last_compiled_at${shift}`,
    });
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH emap AS (
        INSERT INTO ${map} (old_id, new_id)
        SELECT id, gen_random_uuid() FROM episodes WHERE ${t()} AND subject_id = ${source}
        RETURNING old_id, new_id
      ), copied AS (
        INSERT INTO episodes (${COLUMNS})
        SELECT ${values}
        FROM episodes e JOIN emap m ON m.old_id = e.id
        WHERE ${t('e')}
        ORDER BY e.created_at, e.seq
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM copied`);
    return { episodes: row.n, ids };
  }

  /** Contract "Tenant isolation" rule 4 (the operator's tenant audit): rows lacking a tenant_id. */
  async countNullTenant(em: DbHandle, scope: OperatorScope): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`SELECT count(*)::int AS n FROM episodes WHERE ${t()} AND tenant_id IS NULL`);
    return row.n;
  }
}

