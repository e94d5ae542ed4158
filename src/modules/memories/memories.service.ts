import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { observeCompile } from 'src/common/metrics/instrument';
import { TenantScope } from 'src/common/db/tenant-scope';
import { anyWordTsQuery } from 'src/common/text/terms';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { VECTOR_MODE } from 'src/db/database.module';
import { ReadRouter } from 'src/db/read-replicas';
import type { VectorMode } from 'src/db/vector-support';
import { EpisodeWireRow } from 'src/modules/episodes/dto/episode.dto';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { parseAsOf } from 'src/common/db/as-of';
import { PolicyService } from 'src/modules/policy/policy.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { CompileJobSignal } from './compile-job-signal';
import { CompileJobsRepository } from './compile-jobs.repository';
import type { CompilerEpisode, ExistingMemory } from './compiler/heuristic-compiler';
import { restatedMemories } from './compiler/memory-plan';
import { COMPILE_ECHO_LIMIT, CompileJobAcceptedDto, CompileJobDto, CompileRequestDto, CompileResultDto, toCompileJobDto } from './dto/compile.dto';
import { MemoryCursor, MemoryDto, MemoryRow, toMemoryDto } from './dto/memory.dto';
import { labelsOrThrow } from './sensitivity-labels';
import { MemoriesListDto, SearchMemoriesQueryDto } from './dto/search.dto';
import { EmbeddingBackfillRepository } from './embeddings/embedding-backfill.repository';
import { EMBEDDING_PROVIDER, isUsableVector } from './embeddings/embedding-provider';
import type { EmbeddingProvider } from './embeddings/embedding-provider';
import { MemoriesRepository, MemoryFilter, NewMemory, SemanticPoolRow, Supersession } from './memories.repository';
import { MEMORY_COMPILER } from './memory-compiler';
import type { MemoryCompiler, PlannedCompile, PlannedDraft } from './memory-compiler';
import { isMemoryKind } from './memory-kinds';
import type { MemoryKind, MemoryStatus } from './memory-kinds';

/**
 * Most episodes compiled per round (one transaction each; see compileAndCommit). Rounds are
 * also bounded by SERVICE_READ_PAGE_BYTES of episode payload, so a round's episodes, drafts and
 * vectors stay small in memory whatever the episodes' size.
 */
export const COMPILE_BATCH = 2000;

/** What a compile stored: how many memories, and the first COMPILE_ECHO_LIMIT of them. */
export interface CompileOutcome {
  created: number;
  echoed: MemoryRow[];
}

/**
 * Conflict candidates handed to the compiler: the subject's newest active facts, procedures and
 * artifact references. Episode summaries are left out — one per episode, they never overlap,
 * and a long history would make every compile read the whole subject.
 */
const MAX_EXISTING = 5000;

/**
 * Kinds left out of the conflict candidates, whose restatements the pipeline looks up by
 * content after planning (restatedMemories); at most this many per round.
 */
const RESTATED_KINDS = ['episode_summary'] as const;
const MAX_RESTATED = 5000;

/**
 * Semantic search with a local embedding ranks a bounded pool (MemoriesRepository.semanticPool):
 * up to 300 full-text matches of the query's words and the newest 200 memories. Scoring 500
 * texts costs a few milliseconds; the pool is many times any `limit` (at most 100).
 */
const SEMANTIC_POOL = { matches: 300, newest: 200 } as const;
/** Words of a search query that fetch full-text matches into the pool. */
const SEARCH_QUERY_TERMS = 16;

/** Highest cosine first; ties newest first, then by id (the SQL path's order). */
function bySemanticScore(a: SemanticPoolRow & { score: number }, b: SemanticPoolRow & { score: number }): number {
  return b.score - a.score || b.created_ms - a.created_ms || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * A remote (llm) compile prepared outside the transaction: the episodes it read, and the rows
 * and supersessions it planned, embeddings attached.
 */
interface PreparedCompile {
  episodeIds: string[];
  rows: NewMemory[];
  supersessions: Supersession[];
}

@Injectable()
export class MemoriesService {
  private readonly logger = new Logger('memories');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly repo: MemoriesRepository,
    private readonly jobs: CompileJobsRepository,
    private readonly episodes: EpisodesService,
    private readonly webhooks: WebhooksService,
    private readonly embeddingRows: EmbeddingBackfillRepository,
    @Inject(MEMORY_COMPILER) private readonly compiler: MemoryCompiler,
    @Inject(EMBEDDING_PROVIDER) private readonly embeddings: EmbeddingProvider | null,
    private readonly jobSignal: CompileJobSignal,
    @Inject(VECTOR_MODE) private readonly vectorMode: VectorMode,
    private readonly policies: PolicyService,
  ) {}

  /** POST /v1/memories/compile: synchronous result, or a pending job when `async` is true. */
  async compile(ctx: Ctx, dto: CompileRequestDto): Promise<CompileResultDto | CompileJobAcceptedDto> {
    if (dto.async === true) {
      const job = await this.jobs.insert(this.ds.manager, ctx.scope, dto.subject_id);
      this.jobSignal.queued();
      return { job_id: job.id, status: 'pending', subject_id: job.subject_id };
    }
    const outcome = await observeCompile('sync', null, () => this.compileAndCommit(ctx.scope, dto.subject_id));
    return {
      subject_id: dto.subject_id,
      memories_created: outcome.created,
      memories: outcome.echoed.map(toMemoryDto),
      memories_omitted: outcome.created - outcome.echoed.length,
    };
  }

  /**
   * A job of another tenant is unknown (404), like a job that never existed; so is an id that
   * is not a UUID (client libraries probe such ids and expect 404, compat.md).
   */
  async jobStatus(ctx: Ctx, jobId: string): Promise<CompileJobDto> {
    const em = this.ds.manager;
    const job = isUUID(jobId) ? await this.jobs.findById(em, ctx.scope, jobId) : null;
    if (!job) throw AppError.notFound('Compile job not found.');
    const memories = job.status === 'completed' ? await this.repo.findByIds(em, ctx.scope, job.memory_ids ?? []) : [];
    return toCompileJobDto(job, memories);
  }

  /**
   * One whole compile of a subject, as the endpoint and the job worker run it. Network work
   * never happens inside a transaction (it would hold the subject lock and, on PGlite, the
   * only connection): a remote compiler runs first on a snapshot (prepareRemote), and vectors
   * from a remote embedding provider for heuristic memories are fetched after each commit
   * (embedDeferred).
   *
   * The heuristic compile runs in rounds of one transaction each (compileRound: bounded in
   * episodes and bytes), so a large backlog never holds the connection, the subject lock or a
   * snapshot for its whole duration, and each commit leaves the subject consistent (a round's
   * memories and the compiled marks of its episodes commit together). A last short
   * transaction, which finds nothing left, emits `memories.compiled` with the total and runs
   * `finish` (the worker records its job's completion there).
   */
  async compileAndCommit(scope: TenantScope, subjectId: string, finish?: (em: EntityManager, outcome: CompileOutcome) => Promise<void>): Promise<CompileOutcome> {
    if (this.compiler.remote === true) {
      const prepared = await this.prepareRemote(scope, subjectId);
      const outcome = await this.ds.transaction(async (em) => {
        const created = await this.commitPrepared(em, scope, subjectId, prepared);
        const done = { created: created.length, echoed: created.slice(0, COMPILE_ECHO_LIMIT) };
        await finish?.(em, done);
        return done;
      });
      await this.reads.wrote(scope, [subjectId]);
      return outcome;
    }
    const outcome: CompileOutcome = { created: 0, echoed: [] };
    for (;;) {
      const round = await this.ds.transaction(async (em) => {
        await this.repo.lockSubject(em, scope, subjectId);
        const created = await this.compileRound(em, scope, subjectId);
        if (created === null) {
          await this.webhooks.enqueue(em, scope, 'memories.compiled', { subject_id: subjectId, memories_created: outcome.created });
          await finish?.(em, outcome);
        }
        return created;
      });
      if (round === null) return outcome;
      // A round's commit is the subject's new state: reads of it wait for a replica that has it.
      await this.reads.wrote(scope, [subjectId]);
      outcome.created += round.length;
      outcome.echoed.push(...round.slice(0, COMPILE_ECHO_LIMIT - outcome.echoed.length));
      await this.embedDeferred(round);
    }
  }

  /**
   * One round of the heuristic pipeline inside the caller's transaction, which holds the
   * subject's lock: lock the oldest uncompiled episodes (up to COMPILE_BATCH and the read byte
   * budget), compile them against the active memories, embed, insert, supersede, mark them
   * compiled. Returns the stored memories in order, or null when nothing was left to compile.
   *
   * Concurrency: the advisory lock serialises compiles of one subject in every process, and
   * each waits for the previous one to commit before reading episodes, so a repeated or
   * parallel call finds only episodes nobody compiled and an episode is compiled exactly once.
   */
  private async compileRound(em: EntityManager, scope: TenantScope, subjectId: string): Promise<MemoryRow[] | null> {
    const episodes = await this.episodes.lockUncompiled(em, scope, subjectId, { limit: COMPILE_BATCH, maxBytes: this.config.readPageBytes });
    if (episodes.length === 0) return null;
    const { rows, supersessions } = await this.plan(em, scope, subjectId, episodes);
    await this.embedForInsert(rows);
    const created = await this.repo.insertMany(em, scope, rows);
    await this.repo.supersede(em, scope, supersessions);
    await this.episodes.markCompiled(em, scope, episodes.map((e) => e.id));
    return created;
  }

  /**
   * Remote compile, before the transaction: reads (no locks kept) the oldest uncompiled
   * episodes up to the compiler's per-compile bound and the subject's active memories, calls
   * the model, and embeds the planned memories. Episodes beyond the bound stay uncompiled for
   * the next compile. Throws when the compiler fails (nothing is stored).
   */
  private async prepareRemote(scope: TenantScope, subjectId: string): Promise<PreparedCompile> {
    const em = this.ds.manager;
    const episodes = await this.episodes.lockUncompiled(em, scope, subjectId, { limit: this.compiler.maxEpisodesPerCompile ?? COMPILE_BATCH, maxBytes: this.config.readPageBytes });
    if (episodes.length === 0) return { episodeIds: [], rows: [], supersessions: [] };
    const { rows, supersessions } = await this.plan(em, scope, subjectId, episodes);
    await this.attachEmbeddings(rows);
    return { episodeIds: episodes.map((e) => e.id), rows, supersessions };
  }

  /**
   * Compiles episodes against the subject's active memories, then supersedes the episode
   * summaries the new drafts restate (compat.md, "Supersession"): those are not among the
   * candidates the compiler reads, so they are looked up by the drafts' content.
   */
  private async plan(em: EntityManager, scope: TenantScope, subjectId: string, episodes: EpisodeWireRow[]): Promise<{ rows: NewMemory[]; supersessions: Supersession[] }> {
    const existing = await this.repo.activeForSubject(em, scope, subjectId, { excludeKinds: [...RESTATED_KINDS], limit: MAX_EXISTING });
    const planned = await this.compiler.compile(episodes.map(toCompilerEpisode), existing.map(toExistingMemory));
    const contents = [...new Set(planned.drafts.filter((d) => d.status === 'active' && isRestatedKind(d.kind)).map((d) => d.content))];
    const restated = await this.repo.activeWithContent(em, scope, subjectId, RESTATED_KINDS, contents, MAX_RESTATED);
    return resolvePlan(subjectId, restatedMemories(planned, restated.map(toExistingMemory)), [...existing, ...restated]);
  }

  /**
   * Stores a prepared compile under the subject lock. Between the snapshot and the lock another
   * compile may have compiled some of the episodes: memories drawn from any of those are
   * dropped (that compile stored its own), and only episodes still uncompiled are marked.
   */
  private async commitPrepared(em: EntityManager, scope: TenantScope, subjectId: string, p: PreparedCompile): Promise<MemoryRow[]> {
    await this.repo.lockSubject(em, scope, subjectId);
    const current = await this.episodes.findByIds(em, scope, p.episodeIds);
    const open = new Set(current.filter((e) => e.last_compiled_at === null && e.subject_id === subjectId).map((e) => e.id));
    const rows = p.rows.filter((r) => r.source_episode_ids.every((id) => open.has(id)));
    if (rows.length < p.rows.length) {
      this.logger.warn({ subject_id: subjectId, dropped: p.rows.length - rows.length }, 'episodes were compiled by another compile meanwhile; their memories from this compile are dropped');
      const kept = new Set(rows.map((r) => r.id));
      for (const row of rows) {
        if (row.superseded_by !== null && !kept.has(row.superseded_by)) {
          // Its replacement was dropped: the memory stays true.
          row.status = 'active';
          row.valid_to = null;
          row.superseded_by = null;
        }
      }
    }
    const kept = new Set(rows.map((r) => r.id));
    const supersessions = p.supersessions.filter((s) => s.superseded_by === null || kept.has(s.superseded_by));
    const created = await this.repo.insertMany(em, scope, rows);
    await this.repo.supersede(em, scope, supersessions);
    await this.episodes.markCompiled(em, scope, [...open]);
    await this.webhooks.enqueue(em, scope, 'memories.compiled', { subject_id: subjectId, memories_created: created.length });
    return created;
  }

  /**
   * After the commit: vectors for memories a remote provider could not embed inside the
   * transaction. Never throws: the memories are committed, so a failure of the provider or of
   * storing the vectors (the database answering an error now) is logged and leaves them flagged
   * needs_embedding for the backfill; the caller still answers success for its write.
   */
  async embedDeferred(rows: MemoryRow[]): Promise<void> {
    const owed = rows.filter((r) => r.needs_embedding);
    if (this.embeddings?.remote !== true || owed.length === 0) return;
    try {
      const vectors = await this.embeddings.embed(owed.map((r) => r.content));
      const dims = this.embeddings.dimensions;
      await this.embeddingRows.store(
        this.ds.manager,
        owed.map((r, i) => ({ id: r.id, embedding: isUsableVector(vectors[i], dims) ? vectors[i] : null })),
      );
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message }, memories: owed.length }, 'embedding after the commit failed; memories stay flagged needs_embedding for the backfill');
      return;
    }
    for (const row of owed) row.needs_embedding = false;
  }

  /** GET /v1/memories/search: semantic when asked and possible, else text; active memories only. */
  async search(ctx: Ctx, query: SearchMemoriesQueryDto): Promise<MemoriesListDto> {
    // Only the stored kinds exist (import and every compiler keep to them): any other matches nothing.
    if (query.kind !== undefined && !isMemoryKind(query.kind)) return { memories: [] };
    // The tenant's policy bundle applies to search results too; denials here have no receipt.
    const policy = await this.policies.active(ctx.scope);
    const caller = { caller_id: query.caller_id ?? null, caller_type: query.caller_type ?? null };
    const kind = query.kind;
    // As-of search (docs/governance.md): the memories as they stood then, with the status and labels they had.
    const asOf = parseAsOf(query.as_of, ['query', 'as_of']);
    const result = await this.reads.read(ctx.scope, query.subject_id, (em) => this.searchOn(em, ctx, query, kind, asOf));
    return { memories: this.policies.apply(policy, caller, result.memories).kept };
  }

  private async searchOn(em: EntityManager, ctx: Ctx, query: SearchMemoriesQueryDto, kind: MemoryKind | undefined, asOf: Date | null): Promise<MemoriesListDto> {
    const base = { subjectId: query.subject_id, kind, limit: query.limit ?? 20, asOf };
    const text = query.q !== undefined && query.q !== '' ? query.q : undefined;
    if (query.semantic === true && text !== undefined) {
      const local = this.localSimilarity(text);
      if (local !== null) {
        const pool = await this.repo.semanticPool(em, ctx.scope, { ...base, tsquery: anyWordTsQuery(text, SEARCH_QUERY_TERMS), ...SEMANTIC_POOL });
        const top = pool.map((r) => ({ ...r, score: local(r.content) })).sort(bySemanticScore).slice(0, base.limit);
        const rows = await this.repo.findByIds(em, ctx.scope, top.map((r) => r.id), asOf);
        const scores = new Map(top.map((r) => [r.id, r.score]));
        return { memories: rows.map((r) => ({ ...toMemoryDto(r), score: scores.get(r.id)! })) };
      }
      const vector = await this.embedQuery(text);
      if (vector !== null) {
        const rows = await this.repo.searchSemantic(em, ctx.scope, this.vectorMode, { ...base, vector });
        return { memories: rows.map((r) => ({ ...toMemoryDto(r), score: r.score })) };
      }
    }
    const rows = await this.repo.searchText(em, ctx.scope, { ...base, text });
    return { memories: rows.map(toMemoryDto) };
  }

  /** PATCH /v1/memories/{id}/labels: replaces the labels (normalised); 404 for an unknown or another tenant's memory. */
  async setLabels(ctx: Ctx, id: string, input: unknown[]): Promise<MemoryDto> {
    const labels = labelsOrThrow(input, ['body', 'sensitivity_labels']);
    if (!isUUID(id)) throw AppError.notFound(`Memory ${id} not found.`);
    const row = await this.repo.setLabels(this.ds.manager, ctx.scope, id, labels);
    if (row === null) throw AppError.notFound(`Memory ${id} not found.`);
    return toMemoryDto(row);
  }

  // Reads and writes other modules run inside their own transactions (pass its EntityManager).

  /**
   * Deletes the subject's memories and compile jobs; returns the number of memories deleted.
   * Takes the subject's compile lock first, so a compile in flight commits before the delete
   * reads and none of its memories survive.
   */
  async deleteSubject(em: EntityManager, scope: TenantScope, subjectId: string): Promise<{ memories: number; compileJobs: number }> {
    await this.repo.lockSubject(em, scope, subjectId);
    const memories = await this.repo.deleteSubject(em, scope, subjectId);
    const compileJobs = await this.jobs.deleteSubject(em, scope, subjectId);
    return { memories, compileJobs };
  }

  /** One page of a subject's memories (any status) in time order, bounded in rows and bytes. */
  page(em: EntityManager, scope: TenantScope, subjectId: string, opts: { after: MemoryCursor | null; limit: number; maxBytes: number; asOf?: Date | null }) {
    return this.repo.page(em, scope, subjectId, opts);
  }

  /** Every memory of the subject (any status, unless `statuses` is given) in time order. */
  listForSubject(em: EntityManager, scope: TenantScope, subjectId: string, opts: MemoryFilter & { statuses?: readonly MemoryStatus[] } = {}): Promise<MemoryRow[]> {
    return this.repo.listForSubject(em, scope, subjectId, opts);
  }

  /** Active memories of the subject, newest first; filter by kinds, bound with limit, optionally with embeddings. */
  activeForSubject(em: EntityManager, scope: TenantScope, subjectId: string, opts: MemoryFilter = {}): Promise<MemoryRow[]> {
    return this.repo.activeForSubject(em, scope, subjectId, opts);
  }

  findByIds(em: EntityManager, scope: TenantScope, ids: string[]): Promise<MemoryRow[]> {
    return this.repo.findByIds(em, scope, ids);
  }

  /**
   * With a local embedding (stub), the cosine to `query` computed from a text, for semantic
   * ranking without stored vectors; null for other providers or a query with nothing to embed.
   */
  localSimilarity(query: string): ((text: string) => number) | null {
    return this.embeddings?.localSimilarity?.(query) ?? null;
  }

  /**
   * The query vector for a text, or null when embeddings are off, the provider fails, or the
   * text has no content to embed (a zero vector). Never throws: callers fall back to text.
   */
  async embedQuery(text: string): Promise<number[] | null> {
    if (this.embeddings === null) return null;
    try {
      const [vector] = await this.embeddings.embed([text]);
      return isUsableVector(vector, this.embeddings.dimensions) ? vector : null;
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'query embedding failed; using text search');
      return null;
    }
  }

  /**
   * Vectors for memories about to be stored inside a transaction: a local provider embeds them
   * now; a remote one is never called there (it would hold the subject lock, and PGlite's only
   * connection), so they are flagged for embedDeferred after the commit.
   */
  async embedForInsert(rows: NewMemory[]): Promise<void> {
    if (this.embeddings?.remote === true) for (const row of rows) row.needs_embedding = true;
    else await this.attachEmbeddings(rows);
  }

  /**
   * Embeds the new memories' content. A failing provider does not fail the compile: the
   * memories are stored without a vector and flagged needs_embedding for a later backfill.
   */
  private async attachEmbeddings(rows: NewMemory[]): Promise<void> {
    if (this.embeddings === null || rows.length === 0) return;
    let vectors: number[][];
    try {
      vectors = await this.embeddings.embed(rows.map((r) => r.content));
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message }, memories: rows.length }, 'embedding failed; memories stored without embeddings, flagged needs_embedding');
      for (const row of rows) row.needs_embedding = true;
      return;
    }
    rows.forEach((row, i) => {
      // A zero vector (content without tokens) carries no direction: stored as no embedding.
      row.embedding = isUsableVector(vectors[i], this.embeddings!.dimensions) ? vectors[i] : null;
    });
  }
}

function toCompilerEpisode(e: EpisodeWireRow): CompilerEpisode {
  return {
    id: e.id,
    session_id: e.session_id,
    source: e.source,
    type: e.type,
    payload: e.payload,
    metadata: e.metadata ?? {},
    created_at: e.created_at,
  };
}

function isRestatedKind(kind: MemoryKind): boolean {
  return (RESTATED_KINDS as readonly MemoryKind[]).includes(kind);
}

function toExistingMemory(m: MemoryRow): ExistingMemory {
  return { id: m.id, kind: m.kind, content: m.content, summary: m.summary, attribute_key: m.attribute_key, valid_from: m.valid_from };
}

const overlapKey = (m: { kind: string; attribute_key: string | null }) => (m.attribute_key === null ? null : `${m.kind}\u0000${m.attribute_key}`);

/**
 * Rows to insert and supersessions to apply for a compile plan. `superseded_by` points at the
 * memory that replaced one: the active draft of the same kind and attribute key, or, for a
 * draft superseded within the batch, the next draft of that key; a compiler that names the
 * replacement itself (`by_draft`, `replaced_by_draft`: the llm compiler) is taken at its word.
 * Supersessions of ids that were not among the active candidates are ignored (a compiler may
 * not touch other memories).
 */
export function resolvePlan(subjectId: string, plan: PlannedCompile, existing: MemoryRow[]): { rows: NewMemory[]; supersessions: Supersession[] } {
  const rows: NewMemory[] = plan.drafts.map((d: PlannedDraft) => ({
    id: randomUUID(),
    subject_id: subjectId,
    kind: d.kind,
    content: d.content,
    summary: d.summary ?? '',
    confidence: d.confidence,
    valid_from: d.valid_from,
    valid_to: d.valid_to,
    source_episode_ids: d.source_episode_ids,
    metadata: d.metadata ?? {},
    status: d.status,
    attribute_key: d.attribute_key,
    superseded_by: null,
    embedding: null,
    needs_embedding: false,
  }));
  const byKey = new Map<string, NewMemory[]>();
  for (const row of rows) {
    const key = overlapKey(row);
    if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const activeOf = (key: string | null) => (key === null ? undefined : byKey.get(key)?.find((r) => r.status === 'active'));
  plan.drafts.forEach((d, i) => {
    // The compiler named the replacement (llm): take it as said.
    if (d.replaced_by_draft !== undefined && rows[d.replaced_by_draft]) rows[i].superseded_by = rows[d.replaced_by_draft].id;
  });
  for (const row of rows) {
    if (row.status !== 'superseded' || row.superseded_by !== null) continue;
    const key = overlapKey(row);
    const group = key === null ? [] : byKey.get(key)!;
    row.superseded_by = (activeOf(key) ?? group[group.indexOf(row) + 1])?.id ?? null;
  }
  const existingById = new Map(existing.map((m) => [m.id, m]));
  const supersessions: Supersession[] = [];
  for (const s of plan.supersede) {
    const old = existingById.get(s.id);
    if (!old) continue;
    if (s.by_draft !== undefined && rows[s.by_draft]) {
      supersessions.push({ id: s.id, valid_to: s.valid_to, superseded_by: rows[s.by_draft].id });
      continue;
    }
    const key = overlapKey(old);
    const replacement = activeOf(key) ?? (key === null ? undefined : byKey.get(key)?.at(-1));
    supersessions.push({ id: s.id, valid_to: s.valid_to, superseded_by: replacement?.id ?? null });
  }
  return { rows, supersessions };
}
