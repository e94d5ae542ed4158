import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { SubjectKey } from 'src/common/db/subject-key';
import { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { ReceiptsService } from 'src/modules/receipts/receipts.service';
import { SubjectLock } from 'src/modules/memories/subject-lock';
import { SupportService } from 'src/modules/support/support.service';

/** What erasing a subject's stored rows removed, per owning room. */
export interface ErasedSubject {
  episodes: number;
  memories: number;
  compileJobs: number;
  resolutions: number;
  healthCache: number;
  healthHistory: number;
  receipts: number;
}

/**
 * The one place a subject's rows are erased: subject deletion and the stale-subject cleanup.
 * Each first takes the subject's compile lock (SubjectLock), so a compile or memory write in
 * flight commits before anything of the subject is read or deleted, and each owning room
 * deletes its own rows. Snapshot restore (SnapshotsService, which the CLI builds without Nest)
 * takes the same SubjectLock on its target.
 */
@Injectable()
export class SubjectLifecycleService {
  constructor(
    private readonly episodes: EpisodesService,
    private readonly memories: MemoriesService,
    private readonly support: SupportService,
    private readonly receipts: ReceiptsService,
    private readonly subjectLock: SubjectLock,
  ) {}

  /** Takes the subject's compile lock until `em`'s transaction ends (before a restore writes into it). */
  lock(em: EntityManager, scope: AnyScope, subjectId: string): Promise<void> {
    return this.subjectLock.lock(em, scope, subjectId);
  }

  /**
   * Erases the subject's episodes, memories, compile jobs, resolutions, cached health, health
   * history and receipts (they hold the task text, which can name the person: docs/governance.md) inside
   * `em`'s transaction, under the subject's lock (memories first: MemoriesService.deleteSubject
   * takes it). Stored events and notices are the caller's (SubjectsService.delete).
   */
  async erase(em: EntityManager, scope: AnyScope, subjectId: string): Promise<ErasedSubject> {
    const memories = await this.memories.deleteSubject(em, scope, subjectId);
    const episodes = await this.episodes.deleteSubject(em, scope, subjectId);
    const support = await this.support.deleteSubject(em, scope, subjectId);
    const receipts = await this.receipts.deleteSubject(em, scope, subjectId);
    return { episodes, memories: memories.memories, compileJobs: memories.compileJobs, resolutions: support.resolutions_deleted, healthCache: support.health_cache_deleted, healthHistory: support.health_history_deleted, receipts };
  }

  /**
   * Subjects starting with `prefix` (literal; never `_snapshot/` ones) whose newest activity —
   * latest episode created_at or memory updated_at — is before `cutoff`, as (tenant, subject)
   * pairs. Subjects with only side-table rows have no age and are never candidates.
   */
  async staleSubjects(em: EntityManager, scope: OperatorScope, prefix: string, cutoff: Date): Promise<SubjectKey[]> {
    const found = new Map<string, SubjectKey>();
    for (const key of [...(await this.episodes.staleSubjects(em, scope, prefix, cutoff)), ...(await this.memories.staleSubjects(em, scope, prefix, cutoff))]) {
      found.set(JSON.stringify([key.tenant_id, key.subject_id]), key);
    }
    return [...found.values()];
  }

  /**
   * Erases one stale subject inside `em`'s transaction: takes its lock, then checks again that
   * its newest activity is still before `cutoff` (an episode or a compile may have landed since
   * it was listed). The subject's own tenant only: a NULL-tenant subject is not another
   * tenant's subject of the same id (OperatorScope.ofRow). True when it was erased.
   */
  async eraseIfStale(em: EntityManager, operator: OperatorScope, key: SubjectKey, cutoff: Date): Promise<boolean> {
    const scope = operator.ofRow(key.tenant_id);
    await this.lock(em, scope, key.subject_id);
    const times = [await this.episodes.lastActivity(em, scope, key.subject_id), await this.memories.lastActivity(em, scope, key.subject_id)].filter((d): d is Date => d !== null);
    if (times.length === 0 || times.some((d) => d.getTime() >= cutoff.getTime())) return false;
    await this.erase(em, scope, key.subject_id);
    return true;
  }
}
