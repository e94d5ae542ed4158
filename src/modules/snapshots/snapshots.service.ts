import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { ReadRouter } from 'src/db/read-replicas';
import { RestoreResultDto, SnapshotDto, SnapshotListDto, toSnapshotDto } from './dto/snapshot.dto';
import type { SnapshotRow } from 'src/modules/snapshots/snapshot.entity';
import { SnapshotsRepository } from './snapshots.repository';
import { SNAPSHOT_SUBJECT_PREFIX } from 'src/common/auth/reserved-subjects';
import { SubjectLock } from 'src/modules/memories/subject-lock';

/** A name becomes one path segment of the snapshot subject, which must fit in 256 characters. */
export function checkSnapshotName(name: string): void {
  if (name.length < 1 || name.length > 200 || name.includes('/') || name.trim() !== name) {
    throw new Error('snapshot name must be 1-200 characters without "/" or surrounding spaces');
  }
}

@Injectable()
export class SnapshotsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: SnapshotsRepository,
    private readonly reads: ReadRouter,
    private readonly subjectLock: SubjectLock,
  ) {}

  /**
   * Copies a subject into `_snapshot/{name}/v{version}` (version = latest of the name + 1) and
   * records the snapshot row, in one transaction. Operator-only: the contract has no endpoint
   * for it (see the `snapshot create` CLI command). An empty subject is a not_found.
   */
  async create(scope: OperatorScope, subjectId: string, name: string, metadata: Record<string, unknown> = {}): Promise<SnapshotDto> {
    checkSnapshotName(name);
    if (subjectId.startsWith(SNAPSHOT_SUBJECT_PREFIX)) throw new Error('a _snapshot/ subject cannot itself be snapshotted');
    const row = await this.ds.transaction(async (em) => {
      const version = await this.repo.nextVersion(em, scope, name);
      const snapshotSubject = `${SNAPSHOT_SUBJECT_PREFIX}${name}/v${version}`;
      const copied = await this.repo.copySubject(em, scope, subjectId, snapshotSubject);
      if (copied.episodes === 0 && copied.memories === 0) {
        throw AppError.notFound(`Subject ${JSON.stringify(subjectId)} has no episodes or memories to snapshot.`);
      }
      return this.repo.insert(em, scope, {
        name,
        version,
        source_subject_id: subjectId,
        snapshot_subject_id: snapshotSubject,
        metadata,
        episode_count: copied.episodes,
        memory_count: copied.memories,
      });
    });
    return toSnapshotDto(row);
  }

  async list(scope: OperatorScope): Promise<SnapshotListDto> {
    return { snapshots: (await this.repo.list(this.ds.manager, scope)).map(toSnapshotDto) };
  }

  restoreById(scope: OperatorScope, snapshotId: string, targetSubjectId: string): Promise<RestoreResultDto> {
    return this.restore(targetSubjectId, async (em) => {
      const snapshot = await this.repo.findById(em, scope, snapshotId);
      if (!snapshot) throw AppError.notFound(`Snapshot ${snapshotId} not found.`);
      return snapshot;
    });
  }

  restoreByName(scope: OperatorScope, name: string, targetSubjectId: string): Promise<RestoreResultDto> {
    return this.restore(targetSubjectId, async (em) => {
      const snapshot = await this.repo.findLatestByName(em, scope, name);
      if (!snapshot) throw AppError.notFound(`No snapshot named ${JSON.stringify(name)}.`);
      return snapshot;
    });
  }

  /**
   * Contract restore rules (SnapshotsRepository.restoreSubject): new ids, remapped references,
   * timestamps shifted so the newest episode is now, provenance naming the snapshot. The restored
   * rows are added to whatever the target subject already holds; each keeps the snapshot row's
   * tenant. Set-based SQL: the rows never pass through the service's memory.
   */
  private async restore(targetSubjectId: string, find: (em: EntityManager) => Promise<SnapshotRow>): Promise<RestoreResultDto> {
    let tenantId: string | null = null;
    const result = await this.ds.transaction(async (em) => {
      const snapshot = await find(em);
      tenantId = snapshot.tenant_id;
      const scope = TenantScope.ofStored(snapshot.tenant_id);
      // The target's compile lock: a compile or deletion of the target in flight commits first.
      await this.subjectLock.lock(em, scope, targetSubjectId);
      const restored = await this.repo.restoreSubject(em, scope, snapshot.id, snapshot.snapshot_subject_id, targetSubjectId);
      return {
        snapshot_id: snapshot.id,
        name: snapshot.name,
        version: snapshot.version,
        target_subject_id: targetSubjectId,
        episodes_restored: restored.episodes,
        memories_restored: restored.memories,
        receipts_restored: restored.receipts,
      };
    });
    await this.reads.wrote(TenantScope.ofStored(tenantId), [targetSubjectId]);
    return result;
  }
}
