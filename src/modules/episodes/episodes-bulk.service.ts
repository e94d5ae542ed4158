import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { EpisodesRepository } from './episodes.repository';
import type { EpisodeIdMap, RestoreMarks } from './subject-copy.types';

/**
 * Operator bulk work on episodes that other rooms run inside their own transaction (snapshot
 * create and restore): the episodes room keeps the SQL, the caller only the order of the steps.
 * Needs nothing but the repository, so the CLI builds it with `new`.
 */
@Injectable()
export class EpisodesBulkService {
  constructor(private readonly repo: EpisodesRepository) {}

  /** See EpisodesRepository.newestAgeMicros. */
  newestAgeMicros(em: EntityManager, scope: AnyScope, subjectId: string): Promise<string | null> {
    return this.repo.newestAgeMicros(em, scope, subjectId);
  }

  /** Copies the episodes of `source` under `target`; the id map is for the memories of the same copy (EpisodesRepository.copySubject). */
  copySubject(em: EntityManager, scope: AnyScope, source: string, target: string, marks?: RestoreMarks): Promise<{ episodes: number; ids: EpisodeIdMap }> {
    return this.repo.copySubject(em, scope, source, target, marks);
  }

  /** Rows lacking a tenant_id (the operator's tenant audit, contract "Tenant isolation" rule 4). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.repo.countNullTenant(em, scope);
  }
}
