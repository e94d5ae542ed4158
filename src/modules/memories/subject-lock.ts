import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { lockSubject } from 'src/common/db/advisory-locks';
import type { AnyScope } from 'src/common/db/tenant-scope';

/**
 * The subject's compile lock as other rooms take it (subject lifecycle, snapshot restore): the
 * same advisory lock compiles and memory writes take (MemoriesRepository.lockSubject), held until
 * the transaction ends. Needs nothing but the transaction, so the CLI builds it with `new`.
 */
@Injectable()
export class SubjectLock {
  async lock(em: EntityManager, scope: AnyScope, subjectId: string): Promise<void> {
    await lockSubject(em, scope.tenantId, subjectId);
  }
}
