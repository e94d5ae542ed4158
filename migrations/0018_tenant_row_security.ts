import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every table with a tenant column, as of 0017. A later table with tenant_id gets its policy in
 * its own migration (test/e2e/row-level-security.e2e-spec.ts fails until it does).
 */
const TENANT_TABLES = [
  'episodes',
  'memories',
  'compile_jobs',
  'webhook_events',
  'webhook_event_counts',
  'resolutions',
  'snapshots',
  'health_cache',
  'health_refresh_marks',
  'receipts',
  'policy_bundles',
  'memory_revisions',
] as const;

/**
 * Who may see a row: a transaction that declared itself cross-tenant (operator endpoints,
 * workers, single-tenant requests: TenantScope.ALL in the data-access layer), or one that declared
 * the row's tenant. A transaction that declared nothing sees nothing. The layer sets both
 * settings with set_config(…, true), so they end with the transaction and never leak to the next
 * user of a pooled connection. NULL-tenant (legacy) rows are visible only cross-tenant, as the
 * contract's rule 4 says of tenant-filtered queries.
 */
const VISIBLE = `current_setting('app.cross_tenant', true) = 'on' OR tenant_id = current_setting('app.tenant_id', true)`;

/**
 * Revision 0018: row-level security as the backstop behind the tenant-scoped repositories (issue
 * 16 item 7, docs/operations.md "Security model"). FORCE, because the service's own role usually
 * owns the tables and owners skip policies otherwise. Superusers and BYPASSRLS roles are never
 * subject to policies (PostgreSQL's rule): PGlite's only user is one, so on the embedded engine
 * the repository check stays the guard and the policies cost nothing.
 */
export class TenantRowSecurity1700000000018 implements MigrationInterface {
  name = 'TenantRowSecurity1700000000018';
  readonly revision = '0018_tenant_row_security';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TENANT_TABLES) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`CREATE POLICY tenant_scope ON ${table} USING (${VISIBLE}) WITH CHECK (${VISIBLE})`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TENANT_TABLES) {
      await q.query(`DROP POLICY tenant_scope ON ${table}`);
      await q.query(`ALTER TABLE ${table} NO FORCE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} DISABLE ROW LEVEL SECURITY`);
    }
  }
}
