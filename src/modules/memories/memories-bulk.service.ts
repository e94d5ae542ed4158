import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { keysetRows } from 'src/common/db/keyset-page';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import type { EpisodeIdMap, RestoreMarks } from 'src/modules/episodes/subject-copy.types';
import type { MemoryExportRow } from 'src/modules/memories/memory.entity';
import { MemoriesExportRepository, MemoryExportCursor } from './memories-export.repository';
import { MemoriesRepository } from './memories.repository';

/**
 * Operator bulk work on memories that other rooms run inside their own transaction (snapshot
 * create and restore, admin export and import): the memories room keeps the SQL and takes its own
 * lock. Needs nothing but its repositories, so the CLI builds it with `new`.
 */
@Injectable()
export class MemoriesBulkService {
  constructor(
    private readonly repo: MemoriesRepository,
    private readonly exports: MemoriesExportRepository,
  ) {}

  /** See MemoriesRepository.newestAgeMicros. */
  newestAgeMicros(em: EntityManager, scope: AnyScope, subjectId: string): Promise<string | null> {
    return this.repo.newestAgeMicros(em, scope, subjectId);
  }

  /**
   * Copies the memories of `source` under `target` (MemoriesRepository.copySubject). Memories are
   * written under their subject's compile lock, as compiles and memory writes are: the caller
   * (SnapshotsService, for snapshot and restore) holds the target's lock already, taken once
   * before anything of the copy is read or written.
   */
  copySubject(em: EntityManager, scope: AnyScope, source: string, target: string, episodeIds: EpisodeIdMap, marks?: RestoreMarks): Promise<number> {
    return this.repo.copySubject(em, scope, source, target, episodeIds, marks);
  }

  /** Rows lacking a tenant_id (the operator's tenant audit, contract "Tenant isolation" rule 4). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.repo.countNullTenant(em, scope);
  }

  /** Distinct tenants holding memories of the subject, at most two (MemoriesExportRepository.subjectTenants). */
  subjectTenants(em: EntityManager, scope: OperatorScope, subjectId: string): Promise<(string | null)[]> {
    return this.exports.subjectTenants(em, scope, subjectId);
  }

  /** The subject's memories for an export, by (created_at, id), read in pages of at most `pageRows` within the caller's transaction. */
  exportRows(em: EntityManager, scope: OperatorScope, subjectId: string, pageRows: number): AsyncGenerator<MemoryExportRow> {
    return keysetRows((after: MemoryExportCursor | null) => this.exports.exportPage(em, scope, subjectId, after, pageRows));
  }

  /** Those of the given memory ids that already exist (an import that keeps ids checks them first). */
  existingIds(em: EntityManager, scope: OperatorScope, ids: readonly string[]): Promise<string[]> {
    return this.exports.existingIds(em, scope, ids);
  }

  /**
   * Inserts imported memories as given, each in its own tenant. The caller holds the compile
   * lock of every (tenant, subject) they land in: the import takes them all (SubjectLock.lockEach)
   * before it checks ids or writes its episodes, so taking them here again would only repeat it.
   */
  insertImported(em: EntityManager, rows: readonly MemoryExportRow[]): Promise<void> {
    return this.exports.insertImported(em, rows);
  }
}
