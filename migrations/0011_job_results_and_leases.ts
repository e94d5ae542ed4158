import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0011: compile jobs keep the ids of the memories they created (a completed job's
 * status carries them), count attempts, and memories remember that an embedding is still owed
 * when the provider was down at compile time.
 */
export class JobResultsAndLeases1700000000011 implements MigrationInterface {
  name = 'JobResultsAndLeases1700000000011';
  readonly revision = '0011_job_results_and_leases';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE compile_jobs
        ADD COLUMN memory_ids uuid[],
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`ALTER TABLE memories ADD COLUMN needs_embedding boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX ix_memories_needs_embedding ON memories (created_at) WHERE needs_embedding`);
    await q.query(`CREATE INDEX ix_memories_subject_created ON memories (subject_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_memories_subject_created`);
    await q.query(`ALTER TABLE memories DROP COLUMN needs_embedding`);
    await q.query(`ALTER TABLE compile_jobs DROP COLUMN updated_at, DROP COLUMN attempts, DROP COLUMN memory_ids`);
  }
}
