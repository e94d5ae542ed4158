import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0004 (id kept from the contract's version table): embeddings stored portably.
 * `embedding real[]` is the single source of truth on every engine. When pgvector can be
 * installed, a generated `embedding_vec vector` column mirrors it so cosine distance runs in
 * the extension; otherwise the service computes exact cosine over the array (same results).
 * No dimension is fixed in the DDL because EMBEDDING_DIMENSIONS is a setting.
 */
export class EmbeddingAsText1700000000004 implements MigrationInterface {
  name = 'EmbeddingAsText1700000000004';
  readonly revision = '0004_embedding_as_text';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memories ADD COLUMN embedding real[]`);
    const available = await q.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (available.length === 0) return;
    // CREATE EXTENSION may still be refused (no privilege); a savepoint keeps the migration going.
    await q.query(`SAVEPOINT try_vector`);
    try {
      await q.query(`CREATE EXTENSION IF NOT EXISTS vector`);
      await q.query(`RELEASE SAVEPOINT try_vector`);
    } catch {
      await q.query(`ROLLBACK TO SAVEPOINT try_vector`);
      return;
    }
    await q.query(`ALTER TABLE memories ADD COLUMN embedding_vec vector GENERATED ALWAYS AS (embedding::vector) STORED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memories DROP COLUMN IF EXISTS embedding_vec`);
    await q.query(`ALTER TABLE memories DROP COLUMN embedding`);
  }
}
