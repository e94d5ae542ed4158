import { Inject, Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { parseAsOf } from 'src/common/db/as-of';
import type { SubjectKey } from 'src/common/db/subject-key';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { anyWordTsQuery } from 'src/common/text/terms';
import { isMemoryKind } from 'src/compiler/memory-kinds';
import type { MemoryKind, MemoryStatus } from 'src/compiler/memory-kinds';
import { VECTOR_MODE } from 'src/db/database.module';
import { ReadRouter } from 'src/db/read-replicas';
import type { VectorMode } from 'src/db/vector-support';
import { EmbeddingsService } from 'src/modules/models/embeddings.service';
import { PolicyService } from 'src/modules/policy/policy.service';
import { CompileJobsRepository } from './compile-jobs.repository';
import { MemoryDto, MemoryPageOptions, toMemoryDto } from './dto/memory.dto';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { DEFAULT_SEARCH_LIMIT, MemoriesListDto, SearchMemoriesQueryDto } from './dto/search.dto';
import { MemoriesRepository, MemoryFilter, SemanticPoolRow } from './memories.repository';
import { labelsOrThrow } from './sensitivity-labels';

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
 * Memory reads: search (semantic or text, under the tenant's policy), labels, and the reads and
 * subject deletion other rooms run inside their own transactions. The compile pipeline is
 * CompileService's.
 */
@Injectable()
export class MemoriesService {
  constructor(
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly repo: MemoriesRepository,
    private readonly jobs: CompileJobsRepository,
    private readonly embeddings: EmbeddingsService,
    @Inject(VECTOR_MODE) private readonly vectorMode: VectorMode,
    private readonly policies: PolicyService,
  ) {}

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
    const base = { subjectId: query.subject_id, kind, limit: query.limit ?? DEFAULT_SEARCH_LIMIT, asOf };
    const text = query.q !== undefined && query.q !== '' ? query.q : undefined;
    if (query.semantic === true && text !== undefined) {
      const local = this.embeddings.localSimilarity(text);
      if (local !== null) {
        const pool = await this.repo.semanticPool(em, ctx.scope, { ...base, tsquery: anyWordTsQuery(text, SEARCH_QUERY_TERMS), ...SEMANTIC_POOL });
        const top = pool.map((r) => ({ ...r, score: local(r.content) })).sort(bySemanticScore).slice(0, base.limit);
        const rows = await this.repo.findByIds(em, ctx.scope, top.map((r) => r.id), asOf);
        const scores = new Map(top.map((r) => [r.id, r.score]));
        return { memories: rows.map((r) => ({ ...toMemoryDto(r), score: scores.get(r.id)! })) };
      }
      const vector = await this.embeddings.embedQuery(text);
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
  async deleteSubject(em: EntityManager, scope: AnyScope, subjectId: string): Promise<{ memories: number; compileJobs: number }> {
    await this.repo.lockSubject(em, scope, subjectId);
    const memories = await this.repo.deleteSubject(em, scope, subjectId);
    const compileJobs = await this.jobs.deleteSubject(em, scope, subjectId);
    return { memories, compileJobs };
  }

  /** Candidates of the stale-subject cleanup (see MemoriesRepository.staleSubjects). */
  staleSubjects(em: EntityManager, scope: OperatorScope, prefix: string, cutoff: Date): Promise<SubjectKey[]> {
    return this.repo.staleSubjects(em, scope, prefix, cutoff);
  }

  lastActivity(em: EntityManager, scope: AnyScope, subjectId: string): Promise<Date | null> {
    return this.repo.lastActivity(em, scope, subjectId);
  }

  /** One page of a subject's memories (any status) in time order, bounded in rows and bytes. */
  page(em: EntityManager, scope: TenantScope, subjectId: string, opts: MemoryPageOptions) {
    return this.repo.page(em, scope, subjectId, opts);
  }

  /** The same page with each memory as the JSON text of its wire shape (the timeline's fast path). */
  pageJson(em: EntityManager, scope: TenantScope, subjectId: string, opts: MemoryPageOptions) {
    return this.repo.pageJson(em, scope, subjectId, opts);
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
}
