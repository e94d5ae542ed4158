import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { EXPRESSION_INDEX, ID, NOW, NULLABLE_ID } from 'src/db/column-types';
import { entityRow } from 'src/common/db/row-shape';

/**
 * One immutable context or handoff receipt held by a subject (migrations 0014, 0019, 0020): a
 * trigger refuses every UPDATE. A copy held by another subject or tenant shares the id and body.
 */
@Entity('receipts')
@Index('ix_receipts_tenant_subject_id', ['tenant_id', 'subject_id', 'id'])
@Index('ix_receipts_tenant_id', ['tenant_id', 'id'])
// Really on ((coalesce(tenant_id, '')), subject_id, id): see EXPRESSION_INDEX.
@Index('ux_receipts_holder', ['tenant_id', 'subject_id', 'id'], EXPRESSION_INDEX)
export class ReceiptEntity {
  /** A surrogate key (migration 0021): TypeORM needs one, and a receipt is keyed by its holder and id (the unique index above). */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) row_id: string;
  /** A ULID. */
  @Column({ type: 'varchar', length: 26 }) id: string;
  @Column(NULLABLE_ID) tenant_id: string | null;
  @Column(ID) subject_id: string;
  @Column({ type: 'varchar', length: 16 }) mode: string;
  @Column(NULLABLE_ID) parent_receipt_id: string | null;
  /** The signed body as JSON text, its entries packed (stored-body.ts; the comment is migration 0024's). */
  @Column('text', { comment: 'Signed receipt body, JSON text; selected_entries may be packed as columns and rows (revision 0024)' }) body: string;
  @Column(NOW) created_at: Date;
}

/**
 * A receipt as an operator export reads it and an import writes it: the id, the tenant holding
 * the row, and the body as stored (the signed text; every other column is read from it again).
 */
export const RECEIPT_EXPORT_ROW = entityRow(ReceiptEntity, ['id', 'tenant_id', 'body'] as const);
export type ReceiptExportRow = typeof RECEIPT_EXPORT_ROW.row;
