import { asOfBound, withClause } from 'src/common/db/as-of';
import { raw, sql, SqlFragment } from 'src/common/db/sql';
import { episodesAsOfCte } from 'src/modules/episodes/episodes-as-of.sql';

/**
 * The memories table as it stood at `at` (docs/governance.md, As-of reads), as a CTE named
 * `memories` that shadows the table for one statement: the memories created by then, each in
 * the state it had then. A memory not changed since T is its current row; one changed since is
 * the `memory_revisions` row that was current at T, i.e. the state before its first change
 * after T (the trigger of migration 0014 records every in-place change of what a reader sees,
 * with `recorded_until` = when that state stopped being current).
 *
 * Identity columns (id, tenant, subject, creation time) come from the current row, so the outer
 * query's tenant and subject predicates reach the indexes. The stored full-text vector and the
 * embedding belong to the current content: for a revision with other content the vector is
 * recomputed and the embedding left out. `updated_at` is when the state current at T began.
 * `embedding_vec` exists only under pgvector (`vector`).
 *
 * Every column of the table is listed (a test compares them with the table's columns).
 */
export function memoriesAsOfCte(at: Date, opts: { vector: boolean }): SqlFragment {
  const bound = asOfBound(at);
  const keep = (col: string) => sql`CASE WHEN r.seq IS NULL THEN m.${raw(col)} ELSE r.${raw(col)} END AS ${raw(col)}`;
  const sameContent = sql`(r.seq IS NULL OR r.content = m.content)`;
  return sql`memories AS NOT MATERIALIZED (
    SELECT m.id, m.tenant_id, m.subject_id, m.created_at, m.origin, m.idempotency_key, m.needs_embedding,
      ${keep('kind')}, ${keep('content')}, ${keep('summary')}, ${keep('confidence')}, ${keep('valid_from')}, ${keep('valid_to')},
      ${keep('source_episode_ids')}, ${keep('metadata')}, ${keep('status')}, ${keep('attribute_key')}, ${keep('superseded_by')},
      ${keep('sensitivity_labels')},
      CASE WHEN ${sameContent} THEN m.content_tsv ELSE to_tsvector('english', r.content) END AS content_tsv,
      CASE WHEN ${sameContent} THEN m.embedding END AS embedding,
      ${opts.vector ? sql`CASE WHEN ${sameContent} THEN m.embedding_vec END AS embedding_vec,` : raw('')}
      CASE WHEN m.updated_at < ${bound} THEN m.updated_at
        ELSE coalesce((SELECT max(p.recorded_until) FROM memory_revisions p WHERE p.memory_id = m.id AND p.recorded_until < ${bound}), m.created_at)
      END AS updated_at
    FROM memories m
    LEFT JOIN LATERAL (
      SELECT * FROM memory_revisions r WHERE r.memory_id = m.id AND r.recorded_until >= ${bound}
      ORDER BY r.recorded_until, r.seq LIMIT 1
    ) r ON TRUE
    WHERE m.created_at < ${bound})`;
}

/**
 * The CTEs of an as-of read of memories and episodes, or none for a current read (`at` null):
 * put them first in the statement's WITH list.
 */
export function asOfCtes(at: Date | null, opts: { vector: boolean } = { vector: false }): SqlFragment[] {
  return at === null ? [] : [episodesAsOfCte(at), memoriesAsOfCte(at, opts)];
}

/** `WITH <as-of views>` before a statement that has no WITH of its own; nothing for a current read. */
export function asOfWith(at: Date | null, opts: { vector: boolean } = { vector: false }): SqlFragment {
  return withClause(asOfCtes(at, opts));
}
