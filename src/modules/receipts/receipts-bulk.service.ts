import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { keysetRows } from 'src/common/db/keyset-page';
import type { AnyScope, OperatorScope } from 'src/common/db/tenant-scope';
import type { ReceiptExportRow } from 'src/modules/receipts/receipt.entity';
import { ReceiptExportCursor, ReceiptsExportRepository } from './receipts-export.repository';
import { ReceiptsRepository } from './receipts.repository';

/**
 * Operator bulk work on receipts that other rooms run inside their own transaction (snapshot copy
 * and restore, admin export and import): the receipts room keeps the SQL, the caller only the
 * order of the steps. Needs nothing but its repositories, so the CLI builds it with `new`.
 */
@Injectable()
export class ReceiptsBulkService {
  constructor(
    private readonly repo: ReceiptsRepository,
    private readonly exports: ReceiptsExportRepository,
  ) {}

  /** Receipts of `source` now held by `target` too, id and body unchanged (ReceiptsRepository.copySubject). */
  copySubject(em: EntityManager, scope: AnyScope, source: string, target: string): Promise<number> {
    return this.repo.copySubject(em, scope, source, target);
  }

  /** Rows lacking a tenant_id (the operator's tenant audit, contract "Tenant isolation" rule 4). */
  countNullTenant(em: EntityManager, scope: OperatorScope): Promise<number> {
    return this.repo.countNullTenant(em, scope);
  }

  /**
   * The receipts the subject holds, for an export, by (id, tenant), read in pages of at most
   * `pageRows` rows and about `pageBytes` of body text within the caller's transaction.
   */
  exportRows(em: EntityManager, scope: OperatorScope, subjectId: string, pageRows: number, pageBytes: number): AsyncGenerator<ReceiptExportRow> {
    return keysetRows((after: ReceiptExportCursor | null) => this.exports.exportPage(em, scope, subjectId, after, pageRows, pageBytes));
  }

  /** Inserts imported receipts under `subjectId`, each in its own tenant; how many were added (ReceiptsExportRepository.insertImported). */
  insertImported(em: EntityManager, subjectId: string, rows: readonly ReceiptExportRow[]): Promise<number> {
    return this.exports.insertImported(em, subjectId, rows);
  }
}
