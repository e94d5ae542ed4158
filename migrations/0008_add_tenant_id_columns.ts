import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0008: tenant isolation at the query layer. Existing rows keep tenant_id NULL
 * (legacy/shared rows, contract "Tenant isolation" rule 4). Tenant-leading indexes serve the
 * scoped queries; the subject-leading ones stay for single-tenant mode, where queries carry no
 * tenant filter. Uniqueness treats NULL tenants as one tenant (coalesce to '').
 */
export class AddTenantIdColumns1700000000008 implements MigrationInterface {
  name = 'AddTenantIdColumns1700000000008';
  readonly revision = '0008_add_tenant_id_columns';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['episodes', 'memories', 'compile_jobs', 'webhook_events', 'resolutions', 'snapshots']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN tenant_id varchar(256)`);
    }
    await q.query(`CREATE INDEX ix_episodes_tenant_subject_created ON episodes (tenant_id, subject_id, created_at)`);
    await q.query(`CREATE INDEX ix_memories_tenant_subject_status_kind ON memories (tenant_id, subject_id, status, kind)`);
    await q.query(`CREATE INDEX ix_compile_jobs_tenant_subject ON compile_jobs (tenant_id, subject_id)`);
    await q.query(`DROP INDEX ux_resolutions_subject_session`);
    await q.query(`CREATE UNIQUE INDEX ux_resolutions_tenant_subject_session ON resolutions ((coalesce(tenant_id, '')), subject_id, session_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ux_resolutions_tenant_subject_session`);
    await q.query(`CREATE UNIQUE INDEX ux_resolutions_subject_session ON resolutions (subject_id, session_id)`);
    await q.query(`DROP INDEX ix_compile_jobs_tenant_subject`);
    await q.query(`DROP INDEX ix_memories_tenant_subject_status_kind`);
    await q.query(`DROP INDEX ix_episodes_tenant_subject_created`);
    for (const table of ['episodes', 'memories', 'compile_jobs', 'webhook_events', 'resolutions', 'snapshots']) {
      await q.query(`ALTER TABLE ${table} DROP COLUMN tenant_id`);
    }
  }
}
