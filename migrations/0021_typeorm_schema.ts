import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables without a primary key, keyed by a unique index on `(coalesce(tenant_id, ''), …)`. */
const KEYLESS = ['receipts', 'webhook_event_counts', 'health_refresh_marks'] as const;

/**
 * Revision 0021: the schema as TypeORM can describe it, so the entities declare every table
 * exactly (docs/architecture.md, test/e2e/typeorm-schema.e2e-spec.ts).
 * - `typeorm_metadata` is where TypeORM keeps the expression of a generated column (PostgreSQL
 *   reformats `generation_expression`, so TypeORM reads its own copy): one row for each of the
 *   generated columns the migrations made (the tsvectors of 0010, pgvector's mirror of 0004 where
 *   it exists), with the expression as the entity states it.
 * - A table TypeORM maps needs a primary key. Three tables are keyed by a unique index over an
 *   expression (a NULL tenant is one tenant) that cannot be a primary key, so each gets a
 *   surrogate `row_id`. No statement of the service names it: every insert lists its columns,
 *   and the triggers that write two of these tables do too. Receipts stay immutable (adding a
 *   column rewrites the table without firing row triggers).
 */
export class TypeormSchema1700000000021 implements MigrationInterface {
  name = 'TypeormSchema1700000000021';
  readonly revision = '0021_typeorm_schema';

  async up(q: QueryRunner): Promise<void> {
    // The table exactly as TypeORM's schema builder would create it.
    await q.query(`
      CREATE TABLE typeorm_metadata (
        "type" varchar NOT NULL,
        "database" varchar,
        "schema" varchar,
        "table" varchar,
        "name" varchar,
        "value" text
      )`);
    await q.query(`
      INSERT INTO typeorm_metadata ("type", "database", "schema", "table", "name", "value")
      SELECT 'GENERATED_COLUMN', current_database(), current_schema(), c.table_name, c.column_name, x.expression
      FROM (VALUES
        ('episodes', 'content_tsv', 'to_tsvector(''english'', content_text)'),
        ('memories', 'content_tsv', 'to_tsvector(''english'', content)'),
        ('memories', 'embedding_vec', 'embedding::vector')) x(table_name, column_name, expression)
      JOIN information_schema.columns c
        ON c.table_schema = current_schema() AND c.table_name = x.table_name AND c.column_name = x.column_name`);
    for (const table of KEYLESS) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN row_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...KEYLESS].reverse()) {
      await q.query(`ALTER TABLE ${table} DROP COLUMN row_id`);
    }
    await q.query(`DROP TABLE typeorm_metadata`);
  }
}
