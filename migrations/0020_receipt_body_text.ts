import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0020: receipt bodies as plain text, stored uncompressed (bench/README.md "Receipt cost
 * on the context path"). A body is a few tens of KB (one entry per bundle item); as `jsonb`,
 * writing one cost the context path a parse into jsonb and a pglz compression on every receipt,
 * most of the receipt's price. The service is the only writer and serves the body as JSON, so
 * the database never needs to look inside it: `text` with STORAGE EXTERNAL takes the bytes as
 * they come. The values are unchanged (the jsonb text of an old row parses back to the same
 * numbers and strings), so every existing receipt verifies as before. ALTER TYPE rewrites the
 * table without firing row triggers; receipts stay immutable. Operators who prefer disk to
 * latency may `ALTER TABLE receipts ALTER COLUMN body SET STORAGE EXTENDED` (compressed again).
 */
export class ReceiptBodyText1700000000020 implements MigrationInterface {
  name = 'ReceiptBodyText1700000000020';
  readonly revision = '0020_receipt_body_text';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts ALTER COLUMN body TYPE text USING body::text`);
    await q.query(`ALTER TABLE receipts ALTER COLUMN body SET STORAGE EXTERNAL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts ALTER COLUMN body TYPE jsonb USING body::jsonb`);
    await q.query(`ALTER TABLE receipts ALTER COLUMN body SET STORAGE EXTENDED`);
  }
}
