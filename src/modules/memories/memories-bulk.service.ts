import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import type { EpisodeIdMap, RestoreMarks } from 'src/modules/episodes/subject-copy.types';
import { MemoriesRepository } from './memories.repository';

/**
 * Operator bulk work on memories that other rooms run inside their own transaction (snapshot
 * create and restore): the memories room keeps the SQL and takes its own lock. Needs nothing but
 * the repository, so the CLI builds it with `new`.
 */
@Injectable()
export class MemoriesBulkService {
  constructor(private readonly repo: MemoriesRepository) {}

  /** See MemoriesRepository.newestAgeMicros. */
  newestAgeMicros(em: EntityManager, scope: AnyScope, subjectId: string): Promise<string | null> {
    return this.repo.newestAgeMicros(em, scope, subjectId);
  }

  /**
   * Copies the memories of `source` under `target` (MemoriesRepository.copySubject). Memories are
   * written under their subject's compile lock, as compiles and memory writes are: the target's
   * lock is taken here (a caller already holding it, as restore does, holds it twice until commit).
   */
  async copySubject(em: EntityManager, scope: AnyScope, source: string, target: string, episodeIds: EpisodeIdMap, marks?: RestoreMarks): Promise<number> {
    await this.repo.lockSubject(em, scope, target);
    return this.repo.copySubject(em, scope, source, target, episodeIds, marks);
  }

  /** Rows lacking a tenant_id (the operator's tenant audit, contract "Tenant isolation" rule 4). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.repo.countNullTenant(em, scope);
  }
}
