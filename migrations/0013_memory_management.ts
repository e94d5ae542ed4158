import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0013: memories written one at a time over the API.
 * - `origin` says where a memory came from: `compile` (drawn from episodes) or `api` (written
 *   directly, no source episode), so provenance stays true for memories without episodes.
 * - `idempotency_key` is unique per tenant, like episodes', so a retried write returns the
 *   original memory.
 */
export class MemoryManagement1700000000013 implements MigrationInterface {
  name = 'MemoryManagement1700000000013';
  readonly revision = '0013_memory_management';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memories ADD COLUMN origin varchar(16) NOT NULL DEFAULT 'compile', ADD COLUMN idempotency_key varchar(256)`);
    await q.query(`CREATE UNIQUE INDEX ux_memories_idempotency ON memories ((coalesce(tenant_id, '')), idempotency_key) WHERE idempotency_key IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ux_memories_idempotency`);
    await q.query(`ALTER TABLE memories DROP COLUMN idempotency_key, DROP COLUMN origin`);
  }
}
