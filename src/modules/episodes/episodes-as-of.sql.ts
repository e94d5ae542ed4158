import { asOfBound } from 'src/common/db/as-of';
import { sql, SqlFragment } from 'src/common/db/sql';

/**
 * The episodes table as it stood at `at` (docs/governance.md, As-of reads), as a CTE named
 * `episodes` that shadows the table for one statement. Episodes are immutable except for
 * `last_compiled_at`, which a compile sets once (EpisodesRepository.markCompiled; nothing sets
 * it back): an episode existed at T when it was created by then, and was compiled at T when
 * that happened by then. NOT MATERIALIZED keeps it a view the planner inlines, so the outer
 * query's tenant, subject and id predicates still reach the table's indexes.
 *
 * Every column of the table is listed (a test compares them with the table's columns).
 */
export function episodesAsOfCte(at: Date): SqlFragment {
  const bound = asOfBound(at);
  return sql`episodes AS NOT MATERIALIZED (
    SELECT e.id, e.tenant_id, e.subject_id, e.session_id, e.source, e.type, e.payload, e.metadata, e.provenance,
      e.idempotency_key, e.content_text, e.content_tsv, e.seq, e.created_at,
      CASE WHEN e.last_compiled_at < ${bound} THEN e.last_compiled_at END AS last_compiled_at
    FROM episodes e
    WHERE e.created_at < ${bound})`;
}
