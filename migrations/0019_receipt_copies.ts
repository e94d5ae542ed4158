import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0019: a receipt may be held by more than one subject and tenant (docs/governance.md
 * "Receipts in exports and snapshots"). A receipt's body is signed as it was written, subject and
 * tenant included, so a copy (a snapshot of the subject, a restore, an import into another
 * tenant) keeps the body and the id byte for byte and only the row's `tenant_id`/`subject_id`
 * say who holds it. The key becomes (tenant, holding subject, id) instead of the id alone; an
 * id still names one body within a tenant (the import checks that).
 */
export class ReceiptCopies1700000000019 implements MigrationInterface {
  name = 'ReceiptCopies1700000000019';
  readonly revision = '0019_receipt_copies';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts DROP CONSTRAINT receipts_pkey`);
    await q.query(`CREATE UNIQUE INDEX ux_receipts_holder ON receipts ((coalesce(tenant_id, '')), subject_id, id)`);
  }

  /** Fails while copies exist (one id held twice): delete them first to go back. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ux_receipts_holder`);
    await q.query(`ALTER TABLE receipts ADD PRIMARY KEY (id)`);
  }
}
