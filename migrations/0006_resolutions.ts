import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0006: one resolution record per (subject, session). */
export class Resolutions1700000000006 implements MigrationInterface {
  name = 'Resolutions1700000000006';
  readonly revision = '0006_resolutions';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE resolutions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject_id varchar(256) NOT NULL,
        session_id varchar(256) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'open',
        resolution_summary text,
        resolved_at timestamptz,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_resolutions_subject_session ON resolutions (subject_id, session_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE resolutions`);
  }
}
