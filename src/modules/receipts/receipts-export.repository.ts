import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { COUNT, ID_ROW } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import { byStoredTenant, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { RECEIPT_EXPORT_ROW, type ReceiptExportRow } from 'src/modules/receipts/receipt.entity';
import { servedBody, storedText } from './stored-body';

/**
 * Where an export page of receipts ended: the last row's id and holding tenant ('' for none).
 * Receipts have no created_at order to keep; (id, tenant) is the order of their index.
 */
export interface ReceiptExportCursor {
  id: string;
  tenant: string;
}


/** Rows per INSERT: keeps the one JSON parameter of a statement to a few megabytes. */
const INSERT_CHUNK = 500;

/**
 * The receipts room's SQL for the operator's export and import (admin, through
 * ReceiptsBulkService): the receipts a subject holds, each body exactly as stored (the signed
 * text), read in set-based pages and inserted only (receipts are immutable).
 */
@Injectable()
export class ReceiptsExportRepository extends TenantScopedRepository {
  protected readonly table = 'receipts';

  /**
   * One page of the receipts a subject holds, by (id, tenant), with the tenant holding each row,
   * which after an import into another tenant is not the body's own `tenant_id`. Pages stop at
   * maxBytes of body text (at least one).
   */
  async exportPage(em: DbHandle, scope: OperatorScope, subjectId: string, after: ReceiptExportCursor | null, limit: number, maxBytes: number): Promise<{ rows: ReceiptExportRow[]; next: ReceiptExportCursor | null }> {
    const rows = await this.scoped(em, scope, RECEIPT_EXPORT_ROW, (t) => sql`
      WITH candidates AS (
        SELECT c.id, c.tenant_id, octet_length(c.body) AS bytes
        FROM receipts c
        WHERE ${t('c')} AND c.subject_id = ${subjectId}
          ${after ? sql`AND (c.id, coalesce(c.tenant_id, '')) > (${after.id}::varchar, ${after.tenant}::varchar)` : raw('')}
        ORDER BY c.id, coalesce(c.tenant_id, '')
        LIMIT ${limit}
      ), budgeted AS (
        SELECT id, tenant_id, sum(bytes) OVER (ORDER BY id, coalesce(tenant_id, '') ROWS UNBOUNDED PRECEDING) - bytes AS before FROM candidates
      )
      SELECT r.id, r.tenant_id, r.body
      FROM budgeted b JOIN receipts r ON r.id = b.id AND r.tenant_id IS NOT DISTINCT FROM b.tenant_id AND r.subject_id = ${subjectId}
      WHERE ${t('r')} AND b.before < ${maxBytes}
      ORDER BY r.id, coalesce(r.tenant_id, '')`);
    const last = rows[rows.length - 1];
    return { rows, next: last ? { id: last.id, tenant: last.tenant_id ?? '' } : null };
  }

  /**
   * Inserts imported receipts under `subjectId`, each in its own tenant. Receipts are immutable:
   * this only inserts. One already held by the subject with the same body is left as it is (a
   * re-import is a no-op); an id the tenant already holds with another body is refused (409)
   * before anything of its chunk is written. Returns how many rows were added.
   */
  async insertImported(em: DbHandle, subjectId: string, rows: readonly ReceiptExportRow[]): Promise<number> {
    let added = 0;
    for (const [tenantId, group] of byStoredTenant(rows)) {
      for (let i = 0; i < group.length; i += INSERT_CHUNK) {
        // Stored as every receipt is (stored-body.ts); compared with both forms, as a copy the
        // tenant already holds may predate migration 0024 and keep its entries unpacked.
        const chunk = JSON.stringify(
          group.slice(i, i + INSERT_CHUNK).map((r) => {
            const served = servedBody(r.body);
            return { id: r.id, body: storedText(served), served: JSON.stringify(served) };
          }),
        );
        const clashes = await this.scoped(em, TenantScope.ofStored(tenantId), ID_ROW, (t) => sql`
          SELECT DISTINCT r.id FROM receipts r
          JOIN jsonb_to_recordset(${chunk}::jsonb) AS i(id varchar, body text, served text) ON r.id = i.id
          WHERE ${t('r')} AND r.tenant_id IS NOT DISTINCT FROM ${tenantId}::varchar
            AND r.body::jsonb <> i.body::jsonb AND r.body::jsonb <> i.served::jsonb
          ORDER BY r.id`);
        if (clashes.length > 0) {
          throw new AppError(
            ErrorCode.Conflict,
            `Receipt ${clashes[0].id} already exists with a different body (${clashes.length} such receipt(s)); receipts are immutable and are never overwritten`,
            { receipt_ids: clashes.map((c) => c.id) },
          );
        }
        const [inserted] = await this.stamped(em, TenantScope.ofStored(tenantId), COUNT, (tenant) => sql`
          WITH added AS (
            INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
            SELECT i.id, ${tenant}, ${subjectId}, i.body::jsonb->>'mode', i.body::jsonb->>'parent_receipt_id', i.body,
              (i.body::jsonb->>'created_at')::timestamptz
            FROM jsonb_to_recordset(${chunk}::jsonb) AS i(id varchar, body text)
            ON CONFLICT DO NOTHING
            RETURNING 1
          )
          SELECT count(*)::int AS n FROM added`);
        added += inserted.n;
      }
    }
    return added;
  }
}
