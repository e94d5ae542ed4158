import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { lockSubject } from 'src/common/db/advisory-locks';
import { type AnyScope, TenantScope } from 'src/common/db/tenant-scope';

/**
 * The subject's compile lock as other rooms take it (subject lifecycle, snapshot restore, admin
 * import): the same advisory lock compiles and memory writes take (MemoriesRepository.lockSubject),
 * held until the transaction ends. Needs nothing but the transaction, so the CLI builds it with `new`.
 */
@Injectable()
export class SubjectLock {
  async lock(em: EntityManager, scope: AnyScope, subjectId: string): Promise<void> {
    await lockSubject(em, scope.tenantId, subjectId);
  }

  /**
   * The subject's compile lock in each of `tenants` (rows an import writes keep their own
   * tenants), taken in `lockOrder` so two such writers cannot deadlock on each other.
   */
  async lockEach(em: EntityManager, tenants: Iterable<string | null>, subjectId: string): Promise<void> {
    for (const tenantId of lockOrder(tenants)) await this.lock(em, TenantScope.ofStored(tenantId), subjectId);
  }
}

/** Distinct tenants in the order their subject locks are taken: no tenant first, then by id. */
export function lockOrder(tenants: Iterable<string | null>): (string | null)[] {
  return [...new Set(tenants)].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
}
