import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0002: asynchronous compile jobs, persisted so they survive restarts. */
export class CompileJobs1700000000002 implements MigrationInterface {
  name = 'CompileJobs1700000000002';
  readonly revision = '0002_compile_jobs';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE compile_jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject_id varchar(256) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        memories_created integer,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      )`);
    // The worker's claim query reads pending jobs oldest first.
    await q.query(`CREATE INDEX ix_compile_jobs_status_created ON compile_jobs (status, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE compile_jobs`);
  }
}
