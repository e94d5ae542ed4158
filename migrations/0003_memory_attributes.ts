import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0003: conflict resolution. `attribute_key` names what a memory is about
 * (e.g. `profile:plan`); a newer active memory with the same kind and key supersedes the older.
 */
export class MemoryAttributes1700000000003 implements MigrationInterface {
  name = 'MemoryAttributes1700000000003';
  readonly revision = '0003_memory_attributes';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memories ADD COLUMN attribute_key varchar(256), ADD COLUMN superseded_by uuid`);
    await q.query(`CREATE INDEX ix_memories_active_attribute ON memories (subject_id, kind, attribute_key) WHERE status = 'active'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_memories_active_attribute`);
    await q.query(`ALTER TABLE memories DROP COLUMN superseded_by, DROP COLUMN attribute_key`);
  }
}
