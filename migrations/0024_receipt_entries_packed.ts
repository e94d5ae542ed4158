import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0024: receipt bodies written from now on store their `selected_entries` packed as
 * `{"columns": [...], "rows": [[...], ...]}` (src/modules/receipts/stored-body.ts), about half
 * the bytes of the entries as objects; bodies already stored are left as they are (the service
 * reads both). The schema itself does not change: the revision exists so that an older version,
 * which would serve packed entries as they are stored and verify them as tampered, sees a schema
 * it does not know, and so that a rollback has a step that restores what it reads: `down` unpacks
 * every packed body back to the entries as objects, the same values under the same keys, so each
 * body keeps its canonical form and its signature. Receipts are immutable; only this step, as the
 * schema's owner, lifts the trigger for the rewrite, in the migration's own transaction.
 */
export class ReceiptEntriesPacked1700000000024 implements MigrationInterface {
  name = 'ReceiptEntriesPacked1700000000024';
  readonly revision = '0024_receipt_entries_packed';

  async up(q: QueryRunner): Promise<void> {
    // The entity declares the same comment (receipt.entity.ts), so TypeORM's schema check agrees.
    await q.query(`COMMENT ON COLUMN receipts.body IS 'Signed receipt body, JSON text; selected_entries may be packed as columns and rows (revision 0024)'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receipts DISABLE TRIGGER receipts_immutable`);
    await q.query(`
      UPDATE receipts r SET body = jsonb_set(r.body::jsonb, '{selected_entries}', coalesce((
        SELECT jsonb_agg((
          SELECT jsonb_object_agg(c.name, e.item -> (c.pos::int - 1))
          FROM jsonb_array_elements_text(r.body::jsonb -> 'selected_entries' -> 'columns') WITH ORDINALITY AS c(name, pos)
        ) ORDER BY e.pos)
        FROM jsonb_array_elements(r.body::jsonb -> 'selected_entries' -> 'rows') WITH ORDINALITY AS e(item, pos)
      ), '[]'::jsonb))::text
      WHERE jsonb_typeof(r.body::jsonb -> 'selected_entries') = 'object'`);
    await q.query(`ALTER TABLE receipts ENABLE TRIGGER receipts_immutable`);
    await q.query(`COMMENT ON COLUMN receipts.body IS NULL`);
  }
}
