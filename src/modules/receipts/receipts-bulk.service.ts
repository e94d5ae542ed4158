import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import { ReceiptsRepository } from './receipts.repository';

/**
 * Operator bulk work on receipts that other rooms run inside their own transaction (snapshot copy
 * and restore): the receipts room keeps the SQL, the caller only the order of the steps. Needs
 * nothing but the repository, so the CLI builds it with `new`.
 */
@Injectable()
export class ReceiptsBulkService {
  constructor(private readonly repo: ReceiptsRepository) {}

  /** Receipts of `source` now held by `target` too, id and body unchanged (ReceiptsRepository.copySubject). */
  copySubject(em: EntityManager, scope: AnyScope, source: string, target: string): Promise<number> {
    return this.repo.copySubject(em, scope, source, target);
  }

  /** Rows lacking a tenant_id (the operator's tenant audit, contract "Tenant isolation" rule 4). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.repo.countNullTenant(em, scope);
  }
}
