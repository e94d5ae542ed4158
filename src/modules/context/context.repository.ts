import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { bestTextMatchIds, englishTsQuery, exactCosine, join, raw, sql, SqlFragment, stemMatchIds } from 'src/common/db/sql';
import { columnList } from 'src/db/column-types';
import { TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import type { VectorMode } from 'src/db/vector-support';
import { withClause } from 'src/common/db/as-of';
import { EPISODE_ROW } from 'src/modules/episodes/episode.entity';
import type { EpisodeRow } from 'src/modules/episodes/episode.entity';
import { MEMORY_COLUMNS, MEMORY_ROW, MEMORY_TEXT_TIES, MEMORY_TIES } from 'src/modules/memories/memory.entity';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { asOfCtes, asOfWith } from 'src/modules/memories/memories-as-of.sql';

/** A memory candidate with what context assembly needs from the episode it was compiled from. */
export interface MemoryCandidateRow extends MemoryRow {
  /** Cosine similarity to the task's embedding; null without one (or of other dimensions). */
  similarity: number | null;
  /** `payload.date` of the first source episode, when it is a string. */
  episode_date: string | null;
  /** Session of the first source episode. */
  episode_session_id: string | null;
  /** Insertion order of the first source episode (bigint as text). */
  episode_seq: string | null;
}

export interface EpisodeCandidateRow extends EpisodeRow {
  /** Insertion order (bigint as text): the order of episodes sharing one created_at. */
  seq: string;
}

/** How many of each kind of candidate to fetch; see candidate-limits.ts for the figures. */
export interface CandidateLimits {
  /** Full-text hits of episodes, best ts_rank first. */
  text: number;
  /** Full-text hits of memories, best ts_rank first. */
  memoryText: number;
  /** Newest items. */
  recent: number;
  /** Newest profile facts and procedures (memories only). */
  pinned: number;
  /** Full-text hits per table of the task words' variants (expansion.ts `variantTsQuery`), best ts_rank first. */
  variants: number;
  /** Text hits whose same-session neighbours (NEIGHBOURS_EACH_SIDE before and after) are fetched too. */
  neighboursOf: number;
  /** Nearest memories by embedding (pgvector only). */
  semantic: number;
}

export interface CandidateQuery {
  subjectId: string;
  /** `to_tsquery('english', …)` text built from plain words (`'a' | 'b'`), or null for none. */
  tsquery: string | null;
  /** `to_tsquery('simple', …)` text of the task words' variants (expansion.ts `variantTsQuery`), or null for none. */
  variants: string | null;
  sessionId: string | null;
  /** Task embedding, or null when embeddings are off or failed. */
  vector: number[] | null;
  limits: CandidateLimits;
  /** As-of read: the data as it stood at this instant (docs/governance.md); null reads the current state. */
  asOf: Date | null;
}

/** The rows the candidate queries answer: the owning rooms' row shapes plus what assembly adds, checked under test. */
const MEMORY_CANDIDATE_ROW = MEMORY_ROW.with<Omit<MemoryCandidateRow, keyof MemoryRow>>({ similarity: true, episode_date: true, episode_session_id: true, episode_seq: true });
const EPISODE_CANDIDATE_ROW = EPISODE_ROW.with<Omit<EpisodeCandidateRow, keyof EpisodeRow>>({ seq: true });

const MEMORY_CANDIDATE_COLUMNS = raw(columnList(MEMORY_COLUMNS, 'm'));
const EPISODE_CANDIDATE_COLUMNS = raw(columnList(EPISODE_CANDIDATE_ROW.columns, 'e'));

/**
 * Both candidate queries run on every context request: plan them once (see RunOptions). Each
 * collects its candidate ids with ARRAY(… UNION …) and fetches rows by `id = ANY(…)`: a primary
 * key lookup in every plan. With `id IN (…)` PostgreSQL's generic plan (chosen after a few
 * executions of a prepared statement) guessed a thousand ids and hash-joined a sequential scan
 * of the whole table: 3× slower at 12,000 episodes.
 */
const PREPARED = { prepared: true } as const;

/**
 * Episodes fetched on each side of a best text hit: the adjacent turn and the one past it, which
 * in a dialogue is the same speaker's next turn across the other's reply; ranking.ts
 * (`withConversationContext`) scores both from the hit.
 */
const NEIGHBOURS_EACH_SIDE = 2;

/**
 * Candidate retrieval for POST /v1/context. Every query is bounded by LIMITs on indexed
 * orders (GIN full-text match ranked by ts_rank, (subject_id, created_at) for recency, the
 * pgvector distance), so a subject with 50,000 episodes costs the same fetch as one with 500;
 * the union of the branches is what ranking.ts scores.
 */
@Injectable()
export class ContextRepository extends TenantScopedRepository {
  protected readonly table = 'memories and episodes';

  /**
   * Active memories: full-text hits, the newest, the newest facts and procedures, and under
   * pgvector with a hosted embedding the nearest by it; with the similarity to the task and the
   * date and session of the episode each was compiled from.
   */
  async memoryCandidates(em: DbHandle, scope: TenantScope, mode: VectorMode, q: CandidateQuery): Promise<MemoryCandidateRow[]> {
    const { subjectId, limits } = q;
    const vectorText = q.vector === null ? null : JSON.stringify(q.vector);
    return this.scoped(em, scope, MEMORY_CANDIDATE_ROW, (t) => {
      const base = sql`${t('x')} AND x.subject_id = ${subjectId} AND x.status = 'active'`;
      const branches: SqlFragment[] = [
        sql`(SELECT x.id FROM memories x WHERE ${base} ORDER BY x.created_at DESC, ${raw(MEMORY_TIES)} LIMIT ${limits.recent})`,
        sql`(SELECT x.id FROM memories x WHERE ${base} AND x.kind IN ('profile_fact', 'procedure') ORDER BY x.created_at DESC, ${raw(MEMORY_TIES)} LIMIT ${limits.pinned})`,
      ];
      if (q.tsquery !== null) {
        branches.push(bestTextMatchIds('memories', base, q.tsquery, limits.memoryText, MEMORY_TEXT_TIES));
      }
      if (q.variants !== null) branches.push(stemMatchIds('memories', base, q.variants, limits.variants, MEMORY_TEXT_TIES));
      if (q.vector !== null && mode === 'pgvector') {
        // The nearest by embedding, a memory that shares no word with the task among them, in
        // pgvector's order. Without the extension the fetch does not look for them: the exact
        // cosine in SQL costs about 0.35 µs per dimension and memory (a second for 2,000
        // memories of 1,536 dimensions, measured here), a scan no context request can afford;
        // the similarity is still computed exactly for the bounded candidates below
        // (docs/local-models.md).
        branches.push(sql`(SELECT x.id FROM memories x WHERE ${base} AND x.embedding IS NOT NULL AND cardinality(x.embedding) = ${q.vector.length}
          ORDER BY x.embedding_vec <=> ${vectorText}::vector, x.id LIMIT ${limits.semantic})`);
      }
      const similarity =
        q.vector === null
          ? raw('NULL::float8')
          : sql`CASE WHEN cardinality(m.embedding) = ${q.vector.length}
              THEN ${mode === 'pgvector' ? sql`1 - (m.embedding_vec <=> ${vectorText}::vector)` : exactCosine('m.embedding', q.vector)} END`;
      return sql`${asOfWith(q.asOf, { vector: mode === 'pgvector' })}
        SELECT ${MEMORY_CANDIDATE_COLUMNS}, (${similarity})::float8 AS similarity, src.episode_date, src.episode_session_id, src.episode_seq
        FROM memories m
        LEFT JOIN LATERAL (
          SELECT CASE WHEN jsonb_typeof(e.payload -> 'date') = 'string' THEN e.payload ->> 'date' END AS episode_date,
                 e.session_id AS episode_session_id, e.seq AS episode_seq
          FROM episodes e WHERE ${t('e')} AND e.id = m.source_episode_ids[1]
        ) src ON TRUE
        WHERE ${t('m')} AND m.id = ANY(ARRAY(${join(branches, ' UNION ')}))`;
    }, PREPARED);
  }

  /**
   * Episodes: full-text hits, the two previous and two next episodes of the same session around
   * the best hits (an answer often sits next to the turn that shares the task's words, or in
   * the same speaker's next turn), the newest, and the newest of the requested session.
   */
  async episodeCandidates(em: DbHandle, scope: TenantScope, q: CandidateQuery): Promise<EpisodeCandidateRow[]> {
    const { subjectId, limits } = q;
    return this.scoped(em, scope, EPISODE_CANDIDATE_ROW, (t) => {
      const base = (alias: string) => sql`${t(alias)} AND ${raw(alias)}.subject_id = ${subjectId}`;
      const branches: SqlFragment[] = [sql`(SELECT x.id FROM episodes x WHERE ${base('x')} ORDER BY x.created_at DESC, x.seq DESC LIMIT ${limits.recent})`];
      if (q.sessionId !== null) {
        branches.push(sql`(SELECT x.id FROM episodes x WHERE ${base('x')} AND x.session_id = ${q.sessionId} ORDER BY x.created_at DESC, x.seq DESC LIMIT ${limits.recent})`);
      }
      const ctes = asOfCtes(q.asOf);
      if (q.tsquery !== null) {
        ctes.push(sql`hits AS (
          SELECT x.id, x.session_id, x.created_at, x.seq, ts_rank(x.content_tsv, ${englishTsQuery(q.tsquery)}) AS rank
          FROM episodes x
          WHERE ${base('x')} AND x.content_tsv @@ ${englishTsQuery(q.tsquery)}
          ORDER BY rank DESC, x.seq DESC
          LIMIT ${limits.text})`);
        branches.push(raw('(SELECT id FROM hits)'));
        if (q.variants !== null) branches.push(stemMatchIds('episodes', base('x'), q.variants, limits.variants, 'x.seq DESC'));
        branches.push(sql`(SELECT nb.id FROM (SELECT * FROM hits WHERE session_id IS NOT NULL ORDER BY rank DESC, seq DESC LIMIT ${limits.neighboursOf}) h
          CROSS JOIN LATERAL (
            (SELECT p.id FROM episodes p WHERE ${base('p')} AND p.session_id = h.session_id AND (p.created_at, p.seq) < (h.created_at, h.seq)
             ORDER BY p.created_at DESC, p.seq DESC LIMIT ${NEIGHBOURS_EACH_SIDE})
            UNION ALL
            (SELECT n.id FROM episodes n WHERE ${base('n')} AND n.session_id = h.session_id AND (n.created_at, n.seq) > (h.created_at, h.seq)
             ORDER BY n.created_at, n.seq LIMIT ${NEIGHBOURS_EACH_SIDE})
          ) nb)`);
      }
      return sql`${withClause(ctes)}
        SELECT ${EPISODE_CANDIDATE_COLUMNS} FROM episodes e
        WHERE ${t('e')} AND e.id = ANY(ARRAY(${join(branches, ' UNION ')}))`;
    }, PREPARED);
  }
}
