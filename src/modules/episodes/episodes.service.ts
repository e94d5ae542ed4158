import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from 'src/common/context/request-context';
import type { SubjectKey } from 'src/common/db/subject-key';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { isDatabaseUnavailable } from 'src/common/errors/database-unavailable';
import { ErrorCode } from 'src/common/errors/error-codes';
import { GroupCommit } from 'src/common/db/group-commit';
import { metrics } from 'src/common/metrics/metrics';
import { ReadRouter } from 'src/db/read-replicas';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { CreateEpisodeDto } from './dto/create-episode.dto';
import { EpisodePageOptions, EpisodeReply, EpisodesBatchReply, toEpisodeReply } from './dto/episode.dto';
import type { EpisodeWireRow } from 'src/modules/episodes/episode.entity';
import type { EpisodeDigestRow } from 'src/modules/episodes/episode.entity';
import type { EpisodeRow, NewEpisode } from 'src/modules/episodes/episode.entity';
import { episodeText } from 'src/compiler/episode-text';
import { asJsonb } from 'src/db/jsonb-order';
import { EpisodesRepository } from './episodes.repository';
import { needsTransaction } from './ingest-group';

/**
 * Insert-then-lookup rounds for idempotency keys whose stored row vanished in between. A
 * second round only happens when a conflicting episode was deleted concurrently; a third, when
 * that happened twice within one request.
 */
const MAX_IDEMPOTENCY_ROUNDS = 3;

/** Most single-episode requests committed together (one INSERT of at most this many rows). */
const MAX_INGEST_GROUP = 64;

/** Called after an ingestion commits (e.g. Support recomputes health for subjects with sessions). */
export type IngestListener = (scope: TenantScope, episodes: EpisodeRow[]) => Promise<void>;

@Injectable()
export class EpisodesService {
  private readonly logger = new Logger(EpisodesService.name);
  private readonly listeners: IngestListener[] = [];

  constructor(
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly repo: EpisodesRepository,
    private readonly webhooks: WebhooksService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // Off: each request is a group of its own, written as soon as it arrives (as before group commit).
    const grouped = config.ingestGroupCommit;
    this.singles = new GroupCommit<{ scope: TenantScope; dto: CreateEpisodeDto }, EpisodeRow>((items) => this.writeSingles(items), {
      maxGroup: grouped ? MAX_INGEST_GROUP : 1,
      maxInFlight: grouped ? 1 : Number.POSITIVE_INFINITY,
      onGroup: (n) => metrics.ingestGroupSize.observe(n),
      // A database that went away may have committed the group before answering: its members get
      // the 503 (clients retry with their idempotency keys) rather than a second write each.
      retryAlone: (err) => !isDatabaseUnavailable(err),
    });
  }

  /**
   * POST /v1/episodes. Concurrent single-episode requests are group-committed (see
   * GroupCommit): one multi-row INSERT for what arrived while the previous group was
   * committing (in a transaction unless it is the only statement: needsTransaction), each
   * request answered after that commit. One event row per episode
   * created, idempotency keys and errors per request, exactly as when each ran alone.
   */
  async create(ctx: Ctx, dto: CreateEpisodeDto): Promise<EpisodeReply> {
    return toEpisodeReply(await this.singles.submit({ scope: ctx.scope, dto }));
  }

  private readonly singles: GroupCommit<{ scope: TenantScope; dto: CreateEpisodeDto }, EpisodeRow>;

  /** One group of single-episode requests: one INSERT per tenant in the group (usually one), in one transaction unless that is the only statement (needsTransaction). */
  private async writeSingles(items: { scope: TenantScope; dto: CreateEpisodeDto }[]): Promise<EpisodeRow[]> {
    const byTenant = new Map<string | null, number[]>();
    items.forEach((item, i) => byTenant.set(item.scope.tenantId, [...(byTenant.get(item.scope.tenantId) ?? []), i]));
    const out: EpisodeRow[] = new Array(items.length);
    const work = async (em: EntityManager) => {
      for (const positions of byTenant.values()) {
        const scope = items[positions[0]].scope;
        const { rows, created } = await this.insert(em, scope, positions.map((i) => items[i].dto));
        positions.forEach((i, j) => (out[i] = rows[j]));
        await this.webhooks.enqueueMany(em, scope, created.map((row) => ({ event: 'episode.created', data: { id: row.id, subject_id: row.subject_id } })));
      }
    };
    if (needsTransaction(this.webhooks.enabled, items, byTenant.size)) await this.ds.transaction(work);
    else await work(this.ds.manager);
    for (const positions of byTenant.values()) {
      const scope = items[positions[0]].scope;
      const rows = positions.map((i) => out[i]);
      await this.reads.wrote(scope, rows.map((r) => r.subject_id));
      await this.notify(scope, rows);
    }
    return out;
  }

  /** All-or-nothing: one transaction, one INSERT; the response keeps request order. */
  async createBatch(ctx: Ctx, items: CreateEpisodeDto[]): Promise<EpisodesBatchReply> {
    const rows = await this.write(async (em) => {
      const { rows, created } = await this.insert(em, ctx.scope, items);
      if (created.length > 0) {
        await this.webhooks.enqueue(em, ctx.scope, 'episodes.batch_created', {
          count: created.length,
          subject_ids: [...new Set(created.map((r) => r.subject_id))],
        });
      }
      return rows;
    });
    await this.reads.wrote(ctx.scope, rows.map((r) => r.subject_id));
    await this.notify(ctx.scope, rows);
    return { episodes_created: rows.length, episodes: rows.map(toEpisodeReply) };
  }

  /**
   * Ingestion is one INSERT statement, atomic on its own. It needs a transaction only to commit
   * an event row with it (webhooks on); without one, BEGIN and COMMIT would be two of its three
   * round trips to the database.
   */
  private write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.webhooks.enabled ? this.ds.transaction(work) : work(this.ds.manager);
  }

  /**
   * Listeners run after the commit and outside the request's outcome: the episodes are stored,
   * so a listener failure is logged, never turned into an error response (clients retry 5xx).
   */
  onIngested(listener: IngestListener): void {
    this.listeners.push(listener);
  }

  private async notify(scope: TenantScope, rows: EpisodeRow[]): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(scope, rows);
      } catch (err) {
        this.logger.error({ err: { message: (err as Error).message } }, 'ingest listener failed');
      }
    }
  }

  // Reads and writes other modules run inside their own transactions (pass its EntityManager).

  /** Locks the oldest uncompiled episodes of a subject, up to `limit` rows and `maxBytes` (FOR UPDATE SKIP LOCKED). */
  lockUncompiled(em: EntityManager, scope: TenantScope, subjectId: string, bounds: { limit: number; maxBytes: number }): Promise<EpisodeWireRow[]> {
    return this.repo.lockUncompiled(em, scope, subjectId, bounds);
  }

  markCompiled(em: EntityManager, scope: TenantScope, ids: string[]): Promise<void> {
    return this.repo.markCompiled(em, scope, ids);
  }

  findByIds(em: EntityManager, scope: TenantScope, ids: string[]): Promise<EpisodeRow[]> {
    return this.repo.findByIds(em, scope, ids);
  }

  /** A subject's episodes in time order (created_at, then insertion order). */
  listForSubject(em: EntityManager, scope: TenantScope, subjectId: string, opts: { limit?: number; asOf?: Date | null } = {}): Promise<EpisodeRow[]> {
    return this.repo.listForSubject(em, scope, subjectId, opts);
  }

  /** One page of a subject's episodes in time order, bounded in rows and bytes (see EpisodesRepository.page). */
  page(em: EntityManager, scope: TenantScope, subjectId: string, opts: EpisodePageOptions) {
    return this.repo.page(em, scope, subjectId, opts);
  }

  /** The same page with each episode as the JSON text of its wire shape (the timeline's fast path). */
  pageJson(em: EntityManager, scope: TenantScope, subjectId: string, opts: EpisodePageOptions) {
    return this.repo.pageJson(em, scope, subjectId, opts);
  }

  /** The newest `limit` episodes of a subject without payloads, text cut to `textChars`, oldest first. */
  digests(em: EntityManager, scope: TenantScope, subjectId: string, opts: { limit: number; textChars: number }): Promise<EpisodeDigestRow[]> {
    return this.repo.digests(em, scope, subjectId, opts);
  }

  deleteSubject(em: EntityManager, scope: AnyScope, subjectId: string): Promise<number> {
    return this.repo.deleteSubject(em, scope, subjectId);
  }

  /** Candidates of the stale-subject cleanup (see EpisodesRepository.staleSubjects). */
  staleSubjects(em: EntityManager, scope: OperatorScope, prefix: string, cutoff: Date): Promise<SubjectKey[]> {
    return this.repo.staleSubjects(em, scope, prefix, cutoff);
  }

  lastActivity(em: EntityManager, scope: AnyScope, subjectId: string): Promise<Date | null> {
    return this.repo.lastActivity(em, scope, subjectId);
  }

  private async insert(em: EntityManager, scope: TenantScope, items: CreateEpisodeDto[]): Promise<{ rows: EpisodeRow[]; created: EpisodeRow[] }> {
    const drafts: NewEpisode[] = items.map((d) => ({
      id: randomUUID(),
      subject_id: d.subject_id,
      session_id: d.session_id ?? null,
      source: d.source,
      type: d.type,
      payload: d.payload,
      metadata: d.metadata ?? {},
      provenance: d.provenance ?? {},
      idempotency_key: d.idempotency_key ?? null,
      content_text: episodeText(d.payload),
    }));
    const created: EpisodeRow[] = [];
    const byId = new Map<string, EpisodeRow>();
    const existing = new Map<string, EpisodeRow>();
    const draftOf = new Map(drafts.map((d) => [d.id, d]));
    let toInsert = drafts;
    for (let round = 1; toInsert.length > 0; round++) {
      for (const inserted of await this.repo.insertMany(em, scope, toInsert)) {
        const row = storedRow(draftOf.get(inserted.id)!, inserted);
        created.push(row);
        byId.set(row.id, row);
      }
      const missingKeys = toInsert.filter((d) => !byId.has(d.id) && d.idempotency_key !== null).map((d) => d.idempotency_key!);
      for (const row of await this.repo.findByIdempotencyKeys(em, scope, missingKeys)) existing.set(row.idempotency_key, row);
      // The row a key conflicted with can be gone by the lookup (its subject deleted in
      // between): the key is free again, so those drafts are inserted once more rather than
      // answered with a 5xx after the other episodes of the request were written.
      toInsert = toInsert.filter((d) => !byId.has(d.id) && !existing.has(d.idempotency_key!));
      if (toInsert.length > 0 && round >= MAX_IDEMPOTENCY_ROUNDS) {
        throw new AppError(ErrorCode.Conflict, 'An idempotency key of this request was stored and deleted concurrently several times; retry the request.', {
          idempotency_keys: toInsert.map((d) => d.idempotency_key),
        });
      }
    }
    // A key repeated inside one batch, or already stored, answers with the stored episode.
    const rows = drafts.map((d) => byId.get(d.id) ?? existing.get(d.idempotency_key!)!);
    return { rows, created };
  }
}

/**
 * The row an INSERT stored, from what the service sent and what the database added: exactly what
 * `RETURNING` the whole row gave (JSON as jsonb returns it, asJsonb; a new row is not compiled).
 */
function storedRow(draft: NewEpisode, inserted: { id: string; tenant_id: string | null; created_at: Date }): EpisodeRow {
  return {
    id: inserted.id,
    tenant_id: inserted.tenant_id,
    subject_id: draft.subject_id,
    session_id: draft.session_id,
    source: draft.source,
    type: draft.type,
    payload: asJsonb(draft.payload),
    metadata: asJsonb(draft.metadata),
    provenance: asJsonb(draft.provenance),
    content_text: draft.content_text,
    created_at: inserted.created_at,
    last_compiled_at: null,
  };
}
