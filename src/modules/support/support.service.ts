import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import { isReservedSubject } from 'src/common/auth/reserved-subjects';
import { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { ReadRouter } from 'src/db/read-replicas';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import type { EpisodeDigestRow } from 'src/modules/episodes/episode.entity';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { episodeEntry, memoryEntry, SelectedEntry } from 'src/modules/receipts/receipt-body';
import { GovernanceOptions, ReceiptsService } from 'src/modules/receipts/receipts.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { DEFAULT_HANDOFF_MAX_TOKENS, DEFAULT_HANDOFF_REASON, HandoffPackDto, HandoffRequestDto, toHandoffPackDto } from './dto/handoff.dto';
import { DEFAULT_HEALTH_HISTORY_LIMIT, HealthHistoryDto, toHealthHistoryDto } from './dto/health-history.dto';
import { HealthResultDto, toHealthResultDto } from './dto/health.dto';
import { DEFAULT_RESOLUTION_STATUS, ListResolutionsQueryDto, ResolutionDto, toResolutionDto, UpsertResolutionDto } from './dto/resolution.dto';
import { DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES, DEFAULT_RESOLUTION_THRESHOLD_HOURS, SlaQueryDto, SlaResultDto, toSlaResultDto } from './dto/sla.dto';
import { buildHandoff } from './handoff';
import { computeHealth, HealthTextIndex, healthTransitionEvent } from './health';
import { HealthRefresher } from './health-refresher';
import { buildSessions, isOpenStatus } from './sessions';
import { computeSla } from './sla';
import { SupportRepository } from './support.repository';
import type { HandoffPack, HealthResult, HealthState, ProcedureMemory, ProfileFact, ResolutionRecord, SupportEpisode } from './support.types';

/** What health, SLA and handoff are computed from: a subject's recent episodes (bounded) and its resolutions. */
interface SupportInputs {
  episodes: SupportEpisode[];
  resolutions: ResolutionRecord[];
}

interface HealthComputation {
  health: HealthResult;
  inputs: SupportInputs;
  generatedAt: Date;
}

/**
 * More active facts or procedures than any handoff shows (it keeps the newest 20 facts and 5
 * procedures); read in full up to this bound so its own ordering decides.
 */
const HANDOFF_MEMORY_LIMIT = 100;

const MAX_HEALTH_ROUNDS = 3;

/** Stale marks recomputed per sweep (each its own transaction); the rest wait a minute. */
const HEALTH_SWEEP_BATCH = 100;

/**
 * The window of a subject's episodes that health, SLA and handoff read: the newest
 * SUPPORT_EPISODE_ROWS, their text cut to SUPPORT_TEXT_CHARS characters (escalation wording,
 * attempted steps and recent context come from the start of a message). At most ~10 M
 * characters per computation however large or long-lived the subject; sessions whose episodes
 * are all older than the window count through their resolution records only.
 */
export const SUPPORT_EPISODE_ROWS = 5000;
export const SUPPORT_TEXT_CHARS = 2000;

/**
 * The subject.health_* events are emitted by `recomputeHealth`, which every path that can change
 * or notice a change of health goes through: GET health, POST handoff, POST resolutions (in the
 * upsert's transaction) and ingestion of episodes with a session (shortly after its commit,
 * coalesced per subject: see HealthRefresher).
 */
@Injectable()
export class SupportService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('support');
  /**
   * Coalesced recomputation after ingestion. Its delay (HEALTH_REFRESH_DELAY_MS, default 200 ms)
   * is long enough to fold a burst of ingests into one recomputation, short enough that a
   * webhook receiver hears of a change within a second.
   */
  private readonly refresher: HealthRefresher;

  /** Health's reading of episode texts, kept across recomputations (see HealthTextIndex). */
  private readonly healthText = new HealthTextIndex();

  constructor(
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly repo: SupportRepository,
    private readonly episodes: EpisodesService,
    private readonly memories: MemoriesService,
    private readonly webhooks: WebhooksService,
    private readonly receipts: ReceiptsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.refresher = new HealthRefresher(
      async (scope, subjectId) => void (await this.ds.transaction((em) => this.recomputeHealth(em, scope, subjectId))),
      (err) => this.logger.error({ err: { message: (err as Error).message } }, 'health recomputation after ingestion failed'),
      config.healthRefreshDelayMs,
    );
  }

  onModuleInit(): void {
    // Episodes with a session change SLA inputs: mark their subjects for recomputation.
    this.episodes.onIngested(async (scope, rows) => this.refresher.mark(scope, rows.filter((r) => r.session_id !== null).map((r) => r.subject_id)));
  }

  /** Recomputes, before the database closes, the subjects that ingestion marked. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.refresher.close();
  }

  /**
   * Recomputes the subjects whose durable refresh mark is older than `olderThanMs` (an
   * ingestion whose process died before its in-memory refresh, or an import), each in its own
   * transaction; returns how many were recomputed. A subject recomputed twice (by this sweep and
   * by the live refresh of another process) emits its event once: the cache row lock decides.
   */
  async sweepHealthMarks(operator: OperatorScope, olderThanMs: number, limit = HEALTH_SWEEP_BATCH): Promise<number> {
    const marks = await this.repo.staleRefreshMarks(this.ds.manager, operator, olderThanMs, limit);
    let done = 0;
    for (const mark of marks) {
      try {
        const scope = TenantScope.ofStored(mark.tenant_id);
        // Snapshot copies (their episodes are inserted like any others, so they are marked) are
        // frozen history, not customers: no health of their own, no events about them.
        if (isReservedSubject(mark.subject_id)) await this.repo.takeRefreshMark(this.ds.manager, scope, mark.subject_id);
        else {
          await this.ds.transaction((em) => this.recomputeHealth(em, scope, mark.subject_id));
          done++;
        }
      } catch (err) {
        this.logger.error({ err: { message: (err as Error).message }, subject_id: mark.subject_id }, 'health recomputation of a stale mark failed; the mark stays for the next sweep');
      }
    }
    return done;
  }

  /** Runs the health recomputations that ingestion has marked so far, now: for tests, which must not wait out the delay. */
  drainHealthRefresh(): Promise<void> {
    return this.refresher.drain();
  }

  /**
   * POST /v1/resolutions. The upsert and the health recomputation it causes share one
   * transaction: the record, the cached state and a transition event commit together, so a
   * client never sees a 5xx for a record that was in fact stored.
   */
  async upsertResolution(ctx: Ctx, dto: UpsertResolutionDto): Promise<ResolutionDto> {
    const resolution = await this.ds.transaction(async (em) => {
      const row = await this.repo.upsertResolution(em, ctx.scope, {
        id: randomUUID(),
        subject_id: dto.subject_id,
        session_id: dto.session_id,
        status: dto.status ?? DEFAULT_RESOLUTION_STATUS,
        resolution_summary: dto.resolution_summary ?? null,
        metadata: dto.metadata ?? {},
      });
      await this.recomputeHealth(em, ctx.scope, dto.subject_id);
      return toResolutionDto(row);
    });
    await this.reads.wrote(ctx.scope, [dto.subject_id]);
    return resolution;
  }

  /** GET /v1/resolutions: newest update first; an unknown subject has none. */
  async listResolutions(ctx: Ctx, query: ListResolutionsQueryDto): Promise<ResolutionDto[]> {
    const rows = await this.reads.read(ctx.scope, query.subject_id ?? null, (em) => this.repo.listResolutions(em, ctx.scope, query.subject_id, query.status));
    return rows.map(toResolutionDto);
  }

  /** GET /v1/subjects/{id}/health. An unknown subject has no sessions: 100, healthy, no factors. */
  async health(ctx: Ctx, subjectId: string): Promise<HealthResultDto> {
    const { health, generatedAt } = await this.ds.transaction((em) => this.recomputeHealth(em, ctx.scope, subjectId));
    return toHealthResultDto(health, generatedAt);
  }

  /**
   * GET /v1/subjects/{id}/health/history: the newest `limit` points, oldest first. Read-only (a
   * point is written by a recomputation, e.g. GET …/health); an unknown subject has none.
   */
  async healthHistory(ctx: Ctx, subjectId: string, limit = DEFAULT_HEALTH_HISTORY_LIMIT): Promise<HealthHistoryDto> {
    const rows = await this.reads.read(ctx.scope, subjectId, (em) => this.repo.healthHistory(em, ctx.scope, subjectId, limit));
    return toHealthHistoryDto(subjectId, rows);
  }

  /** GET /v1/subjects/{id}/sla. Read-only; an unknown subject has zero sessions. */
  async sla(ctx: Ctx, subjectId: string, query: SlaQueryDto): Promise<SlaResultDto> {
    const inputs = await this.reads.read(ctx.scope, subjectId, (em) => this.loadInputs(em, ctx.scope, subjectId));
    const result = computeSla(subjectId, inputs.episodes, inputs.resolutions, {
      firstResponseThresholdMinutes: query.first_response_threshold_minutes ?? DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES,
      resolutionThresholdHours: query.resolution_threshold_hours ?? DEFAULT_RESOLUTION_THRESHOLD_HOURS,
      now: new Date(),
    });
    return toSlaResultDto(result);
  }

  /**
   * POST /v1/handoff. Health is recomputed like a read of it (a change noticed here emits its
   * event); an unknown subject or session gives a pack that says so, not a 404.
   */
  async handoff(ctx: Ctx, dto: HandoffRequestDto, opts: GovernanceOptions = {}): Promise<HandoffPackDto> {
    const gov = await this.receipts.open(ctx, dto, opts);
    const maxTokens = dto.max_tokens ?? DEFAULT_HANDOFF_MAX_TOKENS;
    const { pack, memories, episodes } = await this.ds.transaction(async (em) => {
      const { health, inputs, generatedAt } = await this.recomputeHealth(em, ctx.scope, dto.subject_id);
      // The policy bundle keeps denied facts and procedures out of the pack (docs/governance.md).
      const facts = this.receipts.filter(gov, await this.activeMemories(em, ctx.scope, dto.subject_id, 'profile_fact', generatedAt));
      const procedures = this.receipts.filter(gov, await this.activeMemories(em, ctx.scope, dto.subject_id, 'procedure', generatedAt));
      const built = buildHandoff({
        subjectId: dto.subject_id,
        sessionId: dto.session_id,
        reason: dto.reason ?? DEFAULT_HANDOFF_REASON,
        maxTokens,
        now: generatedAt,
        episodes: inputs.episodes,
        resolutions: inputs.resolutions,
        facts: facts.map((m): ProfileFact => ({ id: m.id, content: m.content, summary: m.summary ?? '', created_at: m.created_at })),
        procedures: procedures.map((m): ProcedureMemory => ({ id: m.id, content: m.content, created_at: m.created_at })),
        health,
      });
      return { pack: built, memories: [...facts, ...procedures], episodes: inputs.episodes };
    });
    const receipt = await this.receipts.emit(ctx, gov, {
      subjectId: dto.subject_id,
      task: `handoff: ${pack.reason}`,
      request: { endpoint: 'handoff', max_tokens: maxTokens, session_id: dto.session_id, caller_id: gov.caller.caller_id, caller_type: gov.caller.caller_type, reason: pack.reason },
      entries: () => handoffEntries(pack, memories, episodes),
      text: pack.handoff_notes,
      tokenEstimate: pack.token_estimate,
    });
    return { ...toHandoffPackDto(pack), ...receipt };
  }

  // For other modules, inside their transactions.

  /** Removes the subject's resolutions, cached health and health history (DELETE /v1/subjects/{id}). */
  async deleteSubject(
    em: EntityManager,
    scope: AnyScope,
    subjectId: string,
  ): Promise<{ resolutions_deleted: number; health_cache_deleted: number; health_history_deleted: number }> {
    const deleted = await this.repo.deleteSubject(em, scope, subjectId);
    return { resolutions_deleted: deleted.resolutions, health_cache_deleted: deleted.healthCache, health_history_deleted: deleted.healthHistory };
  }

  /**
   * Session ids of the subject that are not resolved (`open`, `unresolved`, or seen on an
   * episode without a resolution record), oldest first — what a context bundle can put first.
   */
  async openSessionIds(em: EntityManager, scope: TenantScope, subjectId: string): Promise<string[]> {
    const inputs = await this.loadInputs(em, scope, subjectId);
    return buildSessions(inputs.episodes, inputs.resolutions)
      .filter((s) => isOpenStatus(s.status))
      .map((s) => s.session_id);
  }

  /**
   * Computes the subject's health, caches it and enqueues a transition event when the state
   * changed since the cached one — exactly once per change, because the cache row stays locked
   * from before the inputs are read until the transaction ends. A concurrent computation waits
   * on the lock, then reads inputs at least as new and compares with the state just written.
   * A subject never computed compares with healthy/100 (what it scored before its first
   * session); one with no sessions is not cached at all, so reading unknown ids stores nothing.
   * A score or state that differs from the subject's last history point appends a new point.
   */
  async recomputeHealth(em: EntityManager, scope: TenantScope, subjectId: string): Promise<HealthComputation> {
    // Consumes the subject's durable refresh mark (if ingestion left one): this computation
    // reads every episode committed so far, which is what the mark asked for.
    await this.repo.takeRefreshMark(em, scope, subjectId);
    let cached = await this.repo.lockCachedHealth(em, scope, subjectId);
    // A second round only after losing the race to cache a first result (the winner's row is
    // then locked and compared with); more would need that row deleted again and again.
    for (let round = 1; ; round++) {
      const inputs = await this.loadInputs(em, scope, subjectId);
      const generatedAt = new Date();
      const health = computeHealth(subjectId, inputs.episodes, inputs.resolutions, { now: generatedAt, texts: this.healthText, tenantId: scope.tenantId });
      const entry = { subject_id: subjectId, state: health.state, score: health.score, factors: health.factors };
      if (cached === null) {
        if (!hasSessions(inputs)) return { health, inputs, generatedAt };
        if (!(await this.repo.insertCachedHealth(em, scope, entry))) {
          if (round >= MAX_HEALTH_ROUNDS) throw new Error(`health cache of a subject kept changing during ${round} computations`);
          cached = await this.repo.lockCachedHealth(em, scope, subjectId);
          continue;
        }
      } else {
        await this.repo.updateCachedHealth(em, scope, entry);
      }
      // Under the cache row lock, in this transaction: a point exactly when the score or state
      // moved since the subject's last point (the console's trend).
      await this.repo.appendHealthPoint(em, scope, subjectId, { score: health.score, state: health.state, at: generatedAt });
      const event = healthTransitionEvent(cached ? { state: cached.state as HealthState, score: cached.score } : null, health, generatedAt);
      if (event) await this.webhooks.enqueue(em, scope, event.event, event.data);
      return { health, inputs, generatedAt };
    }
  }

  private async loadInputs(em: EntityManager, scope: TenantScope, subjectId: string): Promise<SupportInputs> {
    const episodes = await this.episodes.digests(em, scope, subjectId, { limit: SUPPORT_EPISODE_ROWS, textChars: SUPPORT_TEXT_CHARS });
    const resolutions = await this.repo.listResolutions(em, scope, subjectId);
    return { episodes: episodes.map(toSupportEpisode), resolutions };
  }

  /** Active memories of one kind that have not expired, newest first. */
  private async activeMemories(em: EntityManager, scope: TenantScope, subjectId: string, kind: 'profile_fact' | 'procedure', now: Date): Promise<MemoryRow[]> {
    const rows = await this.memories.activeForSubject(em, scope, subjectId, { kinds: [kind], limit: HANDOFF_MEMORY_LIMIT });
    return rows.filter((m) => m.valid_to === null || m.valid_to.getTime() > now.getTime());
  }
}

function toSupportEpisode(row: EpisodeDigestRow): SupportEpisode {
  return { id: row.id, session_id: row.session_id, source: row.source, type: row.type, text: row.content_text, created_at: row.created_at };
}

/**
 * A handoff receipt's entries: the facts the pack shows, then the episodes it cites (behind the
 * active issue, then in recent context), each once, in that order.
 */
function handoffEntries(pack: HandoffPack, memories: MemoryRow[], episodes: SupportEpisode[]): SelectedEntry[] {
  const memoryById = new Map(memories.map((m) => [m.id, m]));
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const entries: SelectedEntry[] = [];
  for (const id of pack.provenance.fact_ids) {
    const m = memoryById.get(id);
    if (m) entries.push(memoryEntry(m, entries.length, null));
  }
  for (const id of new Set([...pack.provenance.episode_ids, ...pack.provenance.context_episode_ids])) {
    const e = episodeById.get(id);
    if (e) entries.push(episodeEntry({ id: e.id, source: e.source, type: e.type, created_at: e.created_at }, entries.length, null));
  }
  return entries;
}

function hasSessions(inputs: SupportInputs): boolean {
  return inputs.resolutions.length > 0 || inputs.episodes.some((e) => e.session_id !== null);
}
