import { Injectable } from '@nestjs/common';
import type { DbHandle } from 'src/common/db/db-handle';
import { COUNT, NO_ROWS, rowOf } from 'src/common/db/row-shape';
import { raw, sql } from 'src/common/db/sql';
import type { AnyScope, OperatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import type { ReceiptBody } from './receipt-body';
import { servedBody, storedText } from './stored-body';

/** A stored body: JSON text, or jsonb already parsed by the driver on a schema before migration 0020 (servedBody). */
type StoredBody = string | object;
const BODY_ROW = rowOf<{ body: StoredBody }>({ body: true });
/** A listing row: the body, and whether it fits the page's byte budget. */
const LISTED_ROW = rowOf<{ id: string; body: StoredBody; fits: boolean }>({ id: true, body: true, fits: true });

export interface ReceiptListQuery {
  subjectId?: string;
  since?: Date;
  until?: Date;
  /** Keyset: only receipts with a smaller id (ULIDs sort by creation time). */
  beforeId?: string;
  limit: number;
  /** Stop adding bodies once this many bytes of stored text are on the page (the first always fits; octet_length, not the compressed size). */
  maxBytes: number;
}

/**
 * Receipts are written once and read; there is no UPDATE here, and the table's trigger refuses
 * one from anywhere else. Rows go only with their subject (deleteSubject).
 */
@Injectable()
export class ReceiptsRepository extends TenantScopedRepository {
  protected readonly table = 'receipts';

  /**
   * The body goes in as JSON text, unparsed (migration 0020), its entries packed (migration 0024,
   * stored-body.ts): the database never looks inside it, and every byte of it costs the context
   * path (parsing it into jsonb was most of what a receipt cost, then its size). `asyncCommit` (setting RECEIPT_ASYNC_COMMIT, only for a
   * statement that commits by itself) sets `synchronous_commit = off` for this one transaction
   * from inside the statement, so it costs no extra round trip: the answer does not wait for
   * the disk flush of the receipt's WAL (docs/governance.md "Durability of receipts").
   */
  async insert(em: DbHandle, scope: TenantScope, body: ReceiptBody, opts: { asyncCommit?: boolean } = {}): Promise<void> {
    const text = storedText(body);
    await this.stamped(em, scope, NO_ROWS, (tenantId) =>
      opts.asyncCommit
        ? sql`
      WITH durability AS (SELECT set_config('synchronous_commit', 'off', true))
      INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
      SELECT ${body.receipt_id}, ${tenantId}, ${body.subject_id}, ${body.mode}, ${body.parent_receipt_id}, ${text}, ${body.created_at}::timestamptz
      FROM durability`
        : sql`
      INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
      VALUES (${body.receipt_id}, ${tenantId}, ${body.subject_id}, ${body.mode}, ${body.parent_receipt_id}, ${text}, ${body.created_at}::timestamptz)`,
    );
  }

  /**
   * A receipt may be held by several subjects of a tenant (a snapshot, a restore: migration
   * 0019), always with the same body, so any row of the id answers.
   */
  async find(em: DbHandle, scope: TenantScope, id: string): Promise<ReceiptBody | null> {
    const rows = await this.scoped(em, scope, BODY_ROW, (t) => sql`SELECT body FROM receipts WHERE ${t()} AND id = ${id} LIMIT 1`);
    return rows.length === 0 ? null : servedBody(rows[0].body);
  }

  /** Newest first, each id once (copies held by other subjects share it); `more` tells whether rows beyond the page exist. */
  async list(em: DbHandle, scope: TenantScope, q: ReceiptListQuery): Promise<{ bodies: ReceiptBody[]; more: boolean }> {
    const rows = await this.scoped(em, scope, LISTED_ROW, (t) => sql`
      SELECT id, body, running - size < ${q.maxBytes} AS fits FROM (
        SELECT id, body, octet_length(body) AS size, sum(octet_length(body)) OVER (ORDER BY id DESC) AS running
        FROM (
          SELECT DISTINCT ON (id) id, body FROM receipts
          WHERE ${t()}
            ${q.subjectId !== undefined ? sql`AND subject_id = ${q.subjectId}` : raw('')}
            ${q.since !== undefined ? sql`AND created_at >= ${q.since}` : raw('')}
            ${q.until !== undefined ? sql`AND created_at < ${q.until}` : raw('')}
            ${q.beforeId !== undefined ? sql`AND id < ${q.beforeId}` : raw('')}
          ORDER BY id DESC
          LIMIT ${q.limit + 1}
        ) page
      ) sized
      ORDER BY id DESC`);
    const page = rows.slice(0, q.limit).filter((r) => r.fits);
    return { bodies: page.map((r) => servedBody(r.body)), more: rows.length > page.length };
  }

  async deleteSubject(em: DbHandle, scope: AnyScope, subjectId: string): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH gone AS (DELETE FROM receipts WHERE ${t()} AND subject_id = ${subjectId} RETURNING 1)
      SELECT count(*)::int AS n FROM gone`);
    return rows[0].n;
  }

  /**
   * Operator bulk work (snapshot copy and restore): the receipts `source` holds, now held by
   * `target` too (docs/governance.md "Receipts in exports and snapshots"). A receipt's signature
   * covers its whole body, its id, subject and tenant included, so the copy keeps id and body
   * byte for byte and only the row names the new holder (migration 0019 keys rows by tenant,
   * holder and id); `verify` stays `valid`. Insert only, as receipts are immutable: a receipt the
   * target already holds is left as it is. Set-based: the bodies never leave the database.
   */
  async copySubject(em: DbHandle, scope: AnyScope, source: string, target: string): Promise<number> {
    const rows = await this.scoped(em, scope, COUNT, (t) => sql`
      WITH copied AS (
        INSERT INTO receipts (id, tenant_id, subject_id, mode, parent_receipt_id, body, created_at)
        SELECT r.id, r.tenant_id, ${target}, r.mode, r.parent_receipt_id, r.body, r.created_at
        FROM receipts r WHERE ${t('r')} AND r.subject_id = ${source}
        ORDER BY r.id
        ON CONFLICT DO NOTHING
        RETURNING 1)
      SELECT count(*)::int AS n FROM copied`);
    return rows[0].n;
  }

  /** Contract "Tenant isolation" rule 4 (the operator's tenant audit): rows lacking a tenant_id. */
  async countNullTenant(em: DbHandle, scope: OperatorScope): Promise<number> {
    const [row] = await this.scoped(em, scope, COUNT, (t) => sql`SELECT count(*)::int AS n FROM receipts WHERE ${t()} AND tenant_id IS NULL`);
    return row.n;
  }
}
