import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { hasRole } from 'src/common/auth/principal';
import { RequestContext } from 'src/common/context/request-context';
import type { Ctx } from 'src/common/context/request-context';
import type { TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { MemoryDto, toMemoryDto } from './dto/memory.dto';
import type { MemoryRow } from 'src/modules/memories/memory.entity';
import { CorrectMemoryDto, DEFAULT_MEMORY_CONFIDENCE, ForgetMemoryResultDto, RememberMemoryDto } from './dto/memory-write.dto';
import { MemoriesRepository, NewMemory } from './memories.repository';
import { MemoryEmbeddingsService } from './memory-embeddings.service';
import { describeMemory, resolveRestatement } from 'src/compiler/restatement';
import { labelsOrThrow } from './sensitivity-labels';

/** Active memories of one kind read as restatement candidates; as many as a compile reads. */
const MAX_RESTATEMENT_CANDIDATES = 5000;
/** Versions one forget erases at most; a longer correction history is finished by forgetting again. */
const MAX_VERSIONS_FORGOTTEN = 1000;
/** Attempts of one remember whose idempotency key's memory keeps vanishing between insert and lookup. */
const MAX_IDEMPOTENCY_ROUNDS = 3;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One memory at a time: read, remember, correct, forget. History is kept — a correction is a
 * new version superseding the old one, and forgetting leaves a tombstone — so as-of reads and
 * receipts stay true. Every write takes the subject's compile lock (MemoriesRepository.lockSubject),
 * so it serialises with compiles and subject deletion of the same subject, and it writes its
 * webhook event in the same transaction.
 */
@Injectable()
export class MemoryRecordsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: MemoriesRepository,
    private readonly memoryEmbeddings: MemoryEmbeddingsService,
    private readonly webhooks: WebhooksService,
  ) {}

  /** GET /v1/memories/{id}: any status, tombstones included; another tenant's memory is unknown (404). */
  async get(ctx: Ctx, id: string): Promise<MemoryDto> {
    return toMemoryDto(await this.require(this.ds.manager, ctx.scope, id));
  }

  /**
   * POST /v1/memories. The memory supersedes the subject's active memories it restates
   * (restatement.ts). A repeated idempotency key returns the memory first stored under it.
   */
  async remember(ctx: Ctx, dto: RememberMemoryDto): Promise<MemoryDto> {
    for (let round = 1; ; round++) {
      const answer = await this.rememberOnce(ctx, dto);
      if (answer !== null) return answer;
      if (round >= MAX_IDEMPOTENCY_ROUNDS) {
        throw new AppError(ErrorCode.Conflict, 'The idempotency key was stored and deleted concurrently several times; retry the request.', {
          idempotency_key: dto.idempotency_key,
        });
      }
    }
  }

  /**
   * One attempt of remember; null when the idempotency key conflicted with a memory that was
   * gone by the time it was looked up (hard-deleted in between): nothing was written, the key
   * is free again and the caller tries once more instead of answering 5xx.
   */
  private async rememberOnce(ctx: Ctx, dto: RememberMemoryDto): Promise<MemoryDto | null> {
    if (dto.idempotency_key !== undefined) {
      const earlier = await this.repo.findByIdempotencyKey(this.ds.manager, ctx.scope, dto.idempotency_key);
      if (earlier) return toMemoryDto(earlier);
    }
    const described = describeMemory(dto.kind, dto.content);
    const labels = labelsOrThrow(dto.sensitivity_labels ?? [], ['body', 'sensitivity_labels']);
    const row: NewMemory = {
      id: randomUUID(),
      subject_id: dto.subject_id,
      kind: dto.kind,
      content: dto.content,
      summary: dto.summary ?? described.summary,
      confidence: dto.confidence ?? DEFAULT_MEMORY_CONFIDENCE,
      valid_from: dto.valid_from === undefined ? new Date() : new Date(dto.valid_from),
      valid_to: null,
      source_episode_ids: [],
      metadata: dto.metadata ?? {},
      status: 'active',
      attribute_key: dto.attribute_key ?? described.attribute_key,
      superseded_by: null,
      embedding: null,
      needs_embedding: false,
      origin: 'api',
      sensitivity_labels: labels,
      idempotency_key: dto.idempotency_key ?? null,
    };
    await this.memoryEmbeddings.embedForInsert([row]);
    const stored = await this.ds.transaction(async (em) => {
      await this.repo.lockSubject(em, ctx.scope, row.subject_id);
      const active = await this.repo.activeForSubject(em, ctx.scope, row.subject_id, { kinds: [row.kind], limit: MAX_RESTATEMENT_CANDIDATES });
      const outcome = resolveRestatement(row, active);
      if (outcome.supersededBy !== null) {
        row.status = 'superseded';
        row.valid_to = outcome.supersededBy.at;
        row.superseded_by = outcome.supersededBy.id;
      }
      if (outcome.supersede.length > 0) row.metadata = { ...row.metadata, supersedes: outcome.supersede };
      const [inserted] = await this.repo.insertMany(em, ctx.scope, [row]);
      // Another request stored the same idempotency key meanwhile (another subject's lock): theirs stands.
      if (inserted === undefined) return null;
      await this.repo.supersede(em, ctx.scope, outcome.supersede.map((id) => ({ id, valid_to: row.valid_from, superseded_by: row.id })));
      await this.webhooks.enqueue(em, ctx.scope, 'memory.created', eventData(inserted, { supersedes: outcome.supersede }));
      return inserted;
    });
    if (stored === null) {
      const theirs = await this.repo.findByIdempotencyKey(this.ds.manager, ctx.scope, row.idempotency_key!);
      return theirs === null ? null : toMemoryDto(theirs);
    }
    await this.memoryEmbeddings.embedDeferred(ctx.scope, [stored]);
    return toMemoryDto(stored);
  }

  /**
   * PATCH /v1/memories/{id}: a correction is a new active version (origin `api`) that supersedes
   * the corrected one, which keeps its content and gets `valid_to` and `superseded`. Only the
   * active version can be corrected (409 otherwise, naming its status).
   */
  async correct(ctx: Ctx, id: string, dto: CorrectMemoryDto): Promise<MemoryDto> {
    if (dto.content === undefined && dto.summary === undefined && dto.confidence === undefined && dto.valid_from === undefined && dto.metadata === undefined) {
      throw AppError.validation(['body'], 'give at least one of content, summary, confidence, valid_from, metadata');
    }
    const current = await this.require(this.ds.manager, ctx.scope, id);
    const validFrom = dto.valid_from === undefined ? new Date() : new Date(dto.valid_from);
    const content = dto.content ?? current.content;
    const row: NewMemory = {
      id: randomUUID(),
      subject_id: current.subject_id,
      kind: current.kind,
      content,
      summary: dto.summary ?? (dto.content === undefined ? current.summary : describeMemory(current.kind, content).summary),
      confidence: dto.confidence ?? current.confidence,
      valid_from: validFrom,
      valid_to: null,
      source_episode_ids: [],
      metadata: { ...(dto.metadata ?? current.metadata ?? {}), supersedes: [current.id] },
      status: 'active',
      attribute_key: current.attribute_key,
      superseded_by: null,
      embedding: null,
      needs_embedding: false,
      origin: 'api',
    };
    await this.memoryEmbeddings.embedForInsert([row]);
    const stored = await this.ds.transaction(async (em) => {
      await this.repo.lockSubject(em, ctx.scope, current.subject_id);
      // Read again under the lock: a compile or another correction may have superseded it meanwhile.
      const locked = await this.require(em, ctx.scope, id, true);
      if (locked.status !== 'active') {
        throw new AppError(ErrorCode.Conflict, `Memory ${id} is ${locked.status}; only the active version of a memory can be corrected.`, {
          status: locked.status,
          superseded_by: locked.superseded_by,
        });
      }
      if (validFrom.getTime() < locked.valid_from.getTime()) {
        throw AppError.validation(['body', 'valid_from'], 'valid_from must not be before the corrected memory’s valid_from');
      }
      const [inserted] = await this.repo.insertMany(em, ctx.scope, [row]);
      await this.repo.supersede(em, ctx.scope, [{ id: locked.id, valid_to: validFrom, superseded_by: inserted.id }]);
      await this.webhooks.enqueue(em, ctx.scope, 'memory.updated', eventData(inserted, { supersedes: [locked.id] }));
      return inserted;
    });
    await this.memoryEmbeddings.embedDeferred(ctx.scope, [stored]);
    return toMemoryDto(stored);
  }

  /**
   * DELETE /v1/memories/{id}: forgets the memory and every earlier version it replaced (a
   * correction's old versions hold the same personal data). By default each becomes a
   * tombstone; `hard` removes the rows. Forgetting a tombstone again changes nothing.
   */
  async forget(ctx: Ctx, id: string, hard: boolean): Promise<ForgetMemoryResultDto> {
    // A tombstone keeps receipts that cite the memory resolvable; removing the row is an
    // operator's decision, not a client's (a bound client key gets 403 before anything is read).
    const principal = RequestContext.current()?.principal;
    if (hard && principal && !hasRole(principal, 'operator')) {
      throw new AppError(ErrorCode.Forbidden, 'Only an operator key may remove a memory with hard=true; without it the memory is tombstoned.');
    }
    const current = await this.require(this.ds.manager, ctx.scope, id);
    return this.ds.transaction(async (em) => {
      await this.repo.lockSubject(em, ctx.scope, current.subject_id);
      const locked = await this.require(em, ctx.scope, id, true);
      const ids = await this.repo.versionChain(em, ctx.scope, locked.id, MAX_VERSIONS_FORGOTTEN);
      const forgotten = hard ? await this.repo.deleteByIds(em, ctx.scope, ids) : (await this.repo.tombstone(em, ctx.scope, ids)).length;
      const status = hard ? 'deleted' : 'tombstoned';
      if (forgotten > 0) {
        await this.webhooks.enqueue(em, ctx.scope, 'memory.deleted', { memory_id: locked.id, subject_id: locked.subject_id, kind: locked.kind, status, memories_forgotten: forgotten });
      }
      return { id: locked.id, subject_id: locked.subject_id, status, memories_forgotten: forgotten };
    });
  }

  private async require(em: EntityManager, scope: TenantScope, id: string, forUpdate = false): Promise<MemoryRow> {
    const row = UUID.test(id) ? await this.repo.findById(em, scope, id, { forUpdate }) : null;
    if (!row) throw AppError.notFound(`Memory ${id} not found.`);
    return row;
  }
}

/** Event data names the memory, never its content: receivers read it back with GET /v1/memories/{id}. */
function eventData(m: MemoryRow, extra: Record<string, unknown>): Record<string, unknown> {
  return { memory_id: m.id, subject_id: m.subject_id, kind: m.kind, status: m.status, ...extra };
}
