import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { DataSource } from 'typeorm';
import { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { ReadRouter } from 'src/db/read-replicas';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { EpisodesBulkService } from 'src/modules/episodes/episodes-bulk.service';
import { CompileJobsService } from 'src/modules/memories/compile-jobs.service';
import { MemoriesBulkService } from 'src/modules/memories/memories-bulk.service';
import { SubjectLock } from 'src/modules/memories/subject-lock';
import { ReceiptsBulkService } from 'src/modules/receipts/receipts-bulk.service';
import { JobItemDto, JobsPageDto, ListJobsQueryDto, toJobItemDto } from './dto/jobs.dto';
import { ImportResultDto } from './dto/import.dto';
import { TenantAuditDto } from './dto/tenant-audit.dto';
import {
  formatTimestampMicros,
  idConflictMessage,
  type ImportPlan,
  planImport,
  toEpisodeItem,
  toMemoryItem,
  toReceiptItem,
  verifyDocument,
  writeExportDocument,
} from './export-document';

/** Rows read per query while exporting: bounded memory per page, few round trips. */
const EXPORT_PAGE_ROWS = 500;

export interface ImportOptions {
  targetSubjectId?: string;
  targetTenantId?: string;
  preserveIds: boolean;
}

export interface ExportCounts {
  episodes: number;
  memories: number;
  receipts: number;
}

@Injectable()
export class AdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly subjectLock: SubjectLock,
    private readonly jobs: CompileJobsService,
    private readonly episodes: EpisodesBulkService,
    private readonly memories: MemoriesBulkService,
    private readonly receipts: ReceiptsBulkService,
  ) {}

  async listJobs(scope: OperatorScope, query: ListJobsQueryDto): Promise<JobsPageDto> {
    const rows = await this.jobs.list(scope, {
      status: query.status,
      subjectId: query.subject_id,
      limit: query.limit,
      offset: query.offset,
    });
    return { jobs: rows.map(toJobItemDto), limit: query.limit, offset: query.offset };
  }

  async requeueJob(scope: OperatorScope, jobId: string): Promise<JobItemDto> {
    return toJobItemDto(await this.jobs.requeue(scope, jobId));
  }

  async tenantAudit(scope: OperatorScope): Promise<TenantAuditDto> {
    // Each owning room counts its own rows, in one snapshot as the single statement they replace.
    const counts = await this.ds.transaction('REPEATABLE READ', async (em) => ({
      episodes: await this.episodes.countNullTenant(em, scope),
      memories: await this.memories.countNullTenant(em, scope),
      compile_jobs: await this.jobs.countNullTenant(em, scope),
      receipts: await this.receipts.countNullTenant(em, scope),
    }));
    const total = counts.episodes + counts.memories + counts.compile_jobs + counts.receipts;
    const guidance =
      total === 0
        ? 'Every episode, memory, compile job and receipt has a tenant_id; nothing to backfill.'
        : `${total} row(s) have no tenant_id (created before tenant support). A tenant-filtered query never returns them; ` +
          'an unfiltered one returns them with everything else. Either backfill tenant_id on episodes, memories, compile_jobs and receipts ' +
          "(e.g. update episodes set tenant_id = '<tenant>' where tenant_id is null and subject_id = '<subject>'), " +
          'or accept them as legacy rows shared by all tenants.';
    return { null_tenant_rows: counts, guidance };
  }

  /**
   * Streams the subject's export document into `out`. The document is first written to a
   * temporary file inside one REPEATABLE READ, read-only transaction (one consistent snapshot,
   * read in pages bounded in rows and SERVICE_READ_PAGE_BYTES, at disk speed); the transaction
   * ends before the first byte goes to `out`, which is then fed from the file at the reader's
   * pace. So a slow reader holds a file handle, never a connection, a snapshot or (on the
   * embedded engine) the only session. A subject without rows is a 404 before anything is
   * written. A reader that goes away mid-stream just ends the export.
   */
  async exportSubject(scope: OperatorScope, subjectId: string, out: Writable, opts: { end?: boolean } = {}): Promise<ExportCounts> {
    const counts: ExportCounts = { episodes: 0, memories: 0, receipts: 0 };
    const dir = await mkdtemp(join(tmpdir(), 'memsvc-export-'));
    const file = join(dir, 'document.json');
    try {
      await this.ds.transaction('REPEATABLE READ', async (em) => {
        await em.query('SET TRANSACTION READ ONLY');
        // Distinct tenants holding rows of the subject; two are enough to tell one from many.
        const tenants = [...new Set([...(await this.episodes.subjectTenants(em, scope, subjectId)), ...(await this.memories.subjectTenants(em, scope, subjectId))])];
        if (tenants.length === 0) throw AppError.notFound(`Subject ${JSON.stringify(subjectId)} has no episodes or memories.`);
        const header = {
          exported_at: formatTimestampMicros(BigInt(Date.now()) * 1000n),
          subject_id: subjectId,
          // The filter's tenant, else the one tenant all rows share (null when they are mixed).
          tenant_id: scope.tenantId ?? (tenants.length === 1 ? tenants[0] : null),
        };
        // Each owning room reads its own rows, page by page, in this one snapshot.
        const pageBytes = this.config.readPageBytes;
        const episodes = counted(counts, 'episodes', this.episodes.exportRows(em, scope, subjectId, EXPORT_PAGE_ROWS, pageBytes), toEpisodeItem);
        const memories = counted(counts, 'memories', this.memories.exportRows(em, scope, subjectId, EXPORT_PAGE_ROWS), toMemoryItem);
        const receipts = counted(counts, 'receipts', this.receipts.exportRows(em, scope, subjectId, EXPORT_PAGE_ROWS, pageBytes), toReceiptItem);
        await pipeline(Readable.from(writeExportDocument(header, episodes, memories, receipts)), createWriteStream(file));
      });
      try {
        await pipeline(createReadStream(file), out, { end: opts.end ?? true });
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return counts;
  }

  /**
   * Verifies a document parsed with `parseLossless` (version, checksum, shape), then writes it in
   * one transaction, under the subject's compile lock in every tenant its rows land in (as the
   * subject lifecycle and snapshot restore write), so an import never interleaves with a compile,
   * memory write or deletion of that subject. With preserve_ids the ids are checked inside that
   * transaction; a concurrent import that takes an id first is reported the same way. Nothing is
   * written on any rejection.
   */
  async importDocument(scope: OperatorScope, document: unknown, options: ImportOptions): Promise<ImportResultDto> {
    const verified = verifyDocument(document);
    if (!verified.ok) throw new AppError(verified.code, verified.message);
    const plan = planImport(verified.doc, { ...options, newId: randomUUID });
    const episodeIds = plan.episodes.map((e) => e.id);
    const memoryIds = plan.memories.map((m) => m.id);
    let receiptsImported = 0;
    try {
      await this.ds.transaction(async (em) => {
        await this.subjectLock.lockEach(em, planTenants(plan), plan.subject_id);
        if (plan.ids_preserved) {
          const taken = { episodes: await this.episodes.existingIds(em, scope, episodeIds), memories: await this.memories.existingIds(em, scope, memoryIds) };
          if (taken.episodes.length > 0 || taken.memories.length > 0) {
            throw new AppError(ErrorCode.IdConflict, idConflictMessage(taken.episodes, taken.memories));
          }
        }
        // Each owning room inserts its own rows: episodes, then the memories that cite them, then receipts.
        await this.episodes.insertImported(em, plan.episodes);
        await this.memories.insertImported(em, plan.memories);
        receiptsImported = await this.receipts.insertImported(em, plan.subject_id, plan.receipts);
      });
    } catch (err) {
      if (plan.ids_preserved && (err as { code?: string }).code === '23505') {
        throw new AppError(ErrorCode.IdConflict, idConflictMessage(episodeIds, memoryIds));
      }
      throw err;
    }
    await this.reads.wrote(TenantScope.ofStored(plan.tenant_id), [plan.subject_id]);
    return {
      subject_id: plan.subject_id,
      tenant_id: plan.tenant_id,
      episodes_imported: plan.episodes.length,
      memories_imported: plan.memories.length,
      receipts_imported: receiptsImported,
      ids_preserved: plan.ids_preserved,
    };
  }
}

/** A room's export rows as document items, counted as they go by. */
async function* counted<R, T>(counts: ExportCounts, kind: keyof ExportCounts, rows: AsyncIterable<R>, toItem: (row: R) => T): AsyncGenerator<T> {
  for await (const row of rows) {
    counts[kind]++;
    yield toItem(row);
  }
}

/** Every tenant an import writes rows in: the subject's compile lock is taken in each. */
function planTenants(plan: ImportPlan): (string | null)[] {
  return [...plan.episodes, ...plan.memories, ...plan.receipts].map((r) => r.tenant_id);
}
