import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0012: last known health per subject, so each state change emits its event once. */
export class AddHealthCache1700000000012 implements MigrationInterface {
  name = 'AddHealthCache1700000000012';
  readonly revision = '0012_add_health_cache';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE health_cache (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(256),
        subject_id varchar(256) NOT NULL,
        state varchar(16) NOT NULL,
        score integer NOT NULL,
        factors jsonb NOT NULL DEFAULT '[]'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_health_cache_tenant_subject ON health_cache ((coalesce(tenant_id, '')), subject_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE health_cache`);
  }
}
