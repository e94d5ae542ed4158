import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import type { AnyScope } from 'src/common/db/tenant-scope';
import { AppError } from 'src/common/errors/app-error';
import { ReadRouter } from 'src/db/read-replicas';
import { RestoreResultDto, SnapshotDto, SnapshotListDto, toSnapshotDto } from './dto/snapshot.dto';
import type { SnapshotRow } from 'src/modules/snapshots/snapshot.entity';
import { SnapshotsRepository } from './snapshots.repository';
import { SNAPSHOT_SUBJECT_PREFIX } from 'src/common/auth/reserved-subjects';
import { SubjectLock } from 'src/modules/memories/subject-lock';
import { EpisodesBulkService } from 'src/modules/episodes/episodes-bulk.service';
import { MemoriesBulkService } from 'src/modules/memories/memories-bulk.service';
import { ReceiptsBulkService } from 'src/modules/receipts/receipts-bulk.service';
import type { RestoreMarks } from 'src/modules/episodes/subject-copy.types';

/** Rows a snapshot copy or restore wrote, per owning room. */
interface SubjectCopy {
  episodes: number;
  memories: number;
  receipts: number;
}

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
    private readonly episodes: EpisodesBulkService,
    private readonly memories: MemoriesBulkService,
    private readonly receipts: ReceiptsBulkService,
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
      // The snapshot subject's compile lock, as for every write of memories (restore takes the target's).
      await this.subjectLock.lock(em, scope, snapshotSubject);
      const copied = await this.copySubject(em, scope, subjectId, snapshotSubject);
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
   * Copies a subject's rows under `target`, each room its own (operator bulk work through the
   * owners' bulk services, in `em`'s transaction): episodes first, whose old → new ids the
   * memories follow, then memories, then receipts (kept byte for byte, so they still verify; one
   * the target already holds is skipped). Every episode and memory gets a new id; a reference to
   * something outside the subject is kept as it is. Without `marks` everything else is kept
   * exactly; a restore's marks shift every episode and memory timestamp and name the snapshot.
   * Set-based SQL: the rows never pass through the service's memory.
   */
  private async copySubject(em: EntityManager, scope: AnyScope, source: string, target: string, marks?: RestoreMarks): Promise<SubjectCopy> {
    const copied = await this.episodes.copySubject(em, scope, source, target, marks);
    const memories = await this.memories.copySubject(em, scope, source, target, copied.ids, marks);
    const receipts = await this.receipts.copySubject(em, scope, source, target);
    return { episodes: copied.episodes, memories, receipts };
  }

  /**
   * Contract restore rules: new ids, remapped references, every timestamp moved by one shift
   * chosen so the newest episode's `created_at` is the transaction's `now()` (the newest memory's
   * when there is no episode; whole microseconds, exact in every time zone, relative offsets
   * kept), episode provenance and memory metadata naming the snapshot and the original id. The
   * restored rows are added to whatever the target subject already holds; each keeps the snapshot
   * row's tenant. Receipts come back unchanged (not shifted, not renumbered).
   */
  private async restore(targetSubjectId: string, find: (em: EntityManager) => Promise<SnapshotRow>): Promise<RestoreResultDto> {
    let tenantId: string | null = null;
    const result = await this.ds.transaction(async (em) => {
      const snapshot = await find(em);
      tenantId = snapshot.tenant_id;
      const scope = TenantScope.ofStored(snapshot.tenant_id);
      // The target's compile lock: a compile or deletion of the target in flight commits first.
      await this.subjectLock.lock(em, scope, targetSubjectId);
      // The shift is measured before anything is written (the target may be the snapshot's own subject).
      const source = snapshot.snapshot_subject_id;
      const shiftMicros = (await this.episodes.newestAgeMicros(em, scope, source)) ?? (await this.memories.newestAgeMicros(em, scope, source)) ?? '0';
      const restored = await this.copySubject(em, scope, source, targetSubjectId, { snapshotId: snapshot.id, shiftMicros });
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
