import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { keysetRows } from 'src/common/db/keyset-page';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { episodeText } from 'src/compiler/episode-text';
import type { EpisodeExportRow } from 'src/modules/episodes/episode.entity';
import { EpisodeExportCursor, EpisodesExportRepository } from './episodes-export.repository';
import { EpisodesRepository } from './episodes.repository';
import type { EpisodeIdMap, RestoreMarks } from './subject-copy.types';

/**
 * Operator bulk work on episodes that other rooms run inside their own transaction (snapshot
 * create and restore, admin export and import): the episodes room keeps the SQL, the caller only
 * the order of the steps. Needs nothing but its repositories, so the CLI builds it with `new`.
 */
@Injectable()
export class EpisodesBulkService {
  constructor(
    private readonly repo: EpisodesRepository,
    private readonly exports: EpisodesExportRepository,
  ) {}

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

  /** Distinct tenants holding episodes of the subject, at most two (EpisodesExportRepository.subjectTenants). */
  subjectTenants(em: EntityManager, scope: OperatorScope, subjectId: string): Promise<(string | null)[]> {
    return this.exports.subjectTenants(em, scope, subjectId);
  }

  /**
   * The subject's episodes for an export, in time order, read in pages of at most `pageRows` rows
   * and about `pageBytes` of JSON text within the caller's transaction (its snapshot).
   */
  exportRows(em: EntityManager, scope: OperatorScope, subjectId: string, pageRows: number, pageBytes: number): AsyncGenerator<EpisodeExportRow> {
    return keysetRows((after: EpisodeExportCursor | null) => this.exports.exportPage(em, scope, subjectId, after, pageRows, pageBytes));
  }

  /** Those of the given episode ids that already exist (an import that keeps ids checks them first). */
  existingIds(em: EntityManager, scope: OperatorScope, ids: readonly string[]): Promise<string[]> {
    return this.exports.existingIds(em, scope, ids);
  }

  /**
   * Inserts imported episodes as given, each in its own tenant. The search text is derived from
   * the payload as ingestion derives it: it is not part of an export.
   */
  insertImported(em: EntityManager, rows: readonly EpisodeExportRow[]): Promise<void> {
    return this.exports.insertImported(em, rows.map((r) => ({ ...r, content_text: episodeText(JSON.parse(r.payload)) })));
  }
}
