import { Inject, Injectable, Logger } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { observeCompile } from 'src/common/metrics/instrument';
import type { TenantScope } from 'src/common/db/tenant-scope';
import type { CompilerEpisode, ExistingMemory, MemoryCompiler } from 'src/compiler/compiler.types';
import { restatedMemories } from 'src/compiler/memory-plan';
import type { MemoryKind } from 'src/compiler/memory-kinds';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { ReadRouter } from 'src/db/read-replicas';
import type { EpisodeWireRow } from 'src/modules/episodes/episode.entity';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { CompileJobSignal } from './compile-job-signal';
import { CompileJobsRepository } from './compile-jobs.repository';
import { COMPILE_ECHO_LIMIT, CompileJobAcceptedDto, CompileJobDto, CompileRequestDto, CompileResultDto, toCompileJobDto } from './dto/compile.dto';
import { toMemoryDto } from './dto/memory.dto';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { MemoriesRepository, NewMemory, Supersession } from './memories.repository';
import { MEMORY_COMPILER } from './memory-compiler';
import { MemoryEmbeddingsService } from './memory-embeddings.service';
import { resolvePlan } from './resolve-plan';

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
 * A remote (llm) compile prepared outside the transaction: the episodes it read, and the rows
 * and supersessions it planned, embeddings attached.
 */
interface PreparedCompile {
  episodeIds: string[];
  rows: NewMemory[];
  supersessions: Supersession[];
}

/**
 * The compile pipeline: episodes in, memories out (sync endpoint, async jobs, the worker).
 * Reads of memories are MemoriesService's.
 */
@Injectable()
export class CompileService {
  private readonly logger = new Logger('memories');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly repo: MemoriesRepository,
    private readonly jobs: CompileJobsRepository,
    private readonly episodes: EpisodesService,
    private readonly webhooks: WebhooksService,
    private readonly memoryEmbeddings: MemoryEmbeddingsService,
    @Inject(MEMORY_COMPILER) private readonly compiler: MemoryCompiler,
    private readonly jobSignal: CompileJobSignal,
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
      await this.memoryEmbeddings.embedDeferred(scope, round);
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
    await this.memoryEmbeddings.embedForInsert(rows);
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
    await this.memoryEmbeddings.attachEmbeddings(rows);
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
