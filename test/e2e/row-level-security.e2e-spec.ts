import request from 'supertest';
import { DataSource, EntityManager } from 'typeorm';
import { rowOf } from 'src/common/db/row-shape';
import { sql } from 'src/common/db/sql';
import { type AnyScope, operatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { rowSecurityApplies, TenantScopedRepository } from 'src/common/db/tenant-scoped.repository';
import { createTestApp, isPglite, TestApp } from '../app-factory';

const A = 'tenant-a';
const B = 'tenant-b';

/** A repository with the mistake row-level security is there for: it asks for the predicate and drops it. */
class ForgetfulRepository extends TenantScopedRepository {
  protected readonly table = 'episodes';
  tenantsSeen(em: EntityManager, scope: AnyScope): Promise<{ tenant_id: string | null }[]> {
    return this.scoped(em, scope, rowOf<{ tenant_id: string | null }>({ tenant_id: true }), (tenant) => {
      tenant();
      return sql`SELECT DISTINCT tenant_id FROM episodes ORDER BY tenant_id`;
    });
  }
}

const tenantsOf = (rows: { tenant_id: string | null }[]) => rows.map((r) => r.tenant_id);

describe('row-level security policies (migration 0018)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const [tenant, subject] of [[A, 'a-subject'], [B, 'b-subject'], [null, 'legacy']] as const) {
      await t.ds.query(`INSERT INTO episodes (tenant_id, subject_id, source, type, payload) VALUES ($1, $2, 'user', 'note', '{}')`, [tenant, subject]);
    }
    // A role the policies bind (not a superuser, not the owner): SET LOCAL ROLE inside a
    // transaction runs the statements as that role on the engine's one connection.
    await t.ds.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memsvc_rls_probe') THEN CREATE ROLE memsvc_rls_probe NOLOGIN; END IF; END $$`);
    await t.ds.query(`GRANT SELECT, INSERT ON episodes TO memsvc_rls_probe`);
  });
  afterAll(() => t.close());

  it('enables and forces a tenant policy on every table with a tenant column', async () => {
    const rows: { table: string; rls: boolean; forced: boolean; policy: string | null }[] = await t.ds.query(`
      SELECT c.relname AS table, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced, p.policyname AS policy
      FROM information_schema.columns col
      JOIN pg_class c ON c.relname = col.table_name AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = col.table_schema)
      LEFT JOIN pg_policies p ON p.tablename = c.relname AND p.schemaname = col.table_schema AND p.policyname = 'tenant_scope'
      WHERE col.column_name = 'tenant_id' AND col.table_schema = current_schema() AND c.relkind = 'r'
      ORDER BY 1`);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(rows.filter((r) => !r.rls || !r.forced || r.policy !== 'tenant_scope')).toEqual([]);
  });

  async function asProbe<T>(settings: { tenant?: string; cross?: 'on' | 'off' }, fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return t.ds.transaction(async (em) => {
      await em.query(`SET LOCAL ROLE memsvc_rls_probe`);
      if (settings.tenant !== undefined) await em.query(`SELECT set_config('app.tenant_id', $1, true)`, [settings.tenant]);
      if (settings.cross !== undefined) await em.query(`SELECT set_config('app.cross_tenant', $1, true)`, [settings.cross]);
      return fn(em);
    });
  }
  const seen = (em: EntityManager) => em.query(`SELECT DISTINCT tenant_id FROM episodes ORDER BY tenant_id`).then(tenantsOf);

  it("shows a query without a tenant predicate only the declared tenant's rows, and nothing when nothing is declared", async () => {
    expect(await asProbe({ tenant: A, cross: 'off' }, seen)).toEqual([A]);
    expect(await asProbe({ tenant: B }, seen)).toEqual([B]);
    expect(await asProbe({}, seen)).toEqual([]);
    expect(await asProbe({ cross: 'on' }, seen)).toEqual([A, B, null]);
  });

  it("refuses to write a row into another tenant than the declared one", async () => {
    await expect(
      asProbe({ tenant: A }, (em) => em.query(`INSERT INTO episodes (tenant_id, subject_id, source, type, payload) VALUES ($1, 'x', 'user', 'note', '{}')`, [B])),
    ).rejects.toThrow(/row-level security/);
  });
});

/**
 * The service itself connected as a role the policies bind (the production set-up the migration
 * is for: the service's own, non-superuser role). PGlite has one superuser session, so this runs
 * on PostgreSQL only; there the repository check stays the guard.
 */
if (!isPglite()) describe('the service under row-level security (PostgreSQL, non-superuser role)', () => {
  const MASTER = 'rls-master';
  let t: TestApp;
  let owner: DataSource;

  beforeAll(async () => {
    owner = new DataSource({ type: 'postgres', url: process.env.TEST_DB_URL, extra: { max: 1 } });
    await owner.initialize();
    await owner.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memsvc_rls_app') THEN CREATE ROLE memsvc_rls_app LOGIN; END IF; END $$`);
    await owner.query(`GRANT USAGE ON SCHEMA public TO memsvc_rls_app`);
    await owner.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO memsvc_rls_app`);
    await owner.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO memsvc_rls_app`);
    const url = new URL(process.env.TEST_DB_URL!);
    url.username = 'memsvc_rls_app';
    url.password = '';
    t = await createTestApp({ SERVICE_DATABASE_URL: url.toString(), SERVICE_API_KEY: MASTER, SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(async () => {
    await t?.close();
    await owner?.destroy();
  });

  it('runs as a role the policies bind', async () => {
    expect(await rowSecurityApplies(t.ds)).toBe(true);
    expect(await rowSecurityApplies(owner)).toBe(false);
  });

  it("serves bound keys as usual, and a query that forgets its predicate sees only its scope's rows", async () => {
    const key = async (tenant: string) => (await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'client', tenant_id: tenant }).expect(201)).body.key as string;
    const keyA = await key(A);
    const keyB = await key(B);
    const ingest = (k: string, subject: string, text: string) =>
      request(t.http).post('/v1/episodes').set('X-API-Key', k).send({ subject_id: subject, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: text }] } }).expect(201);
    await ingest(keyA, 'juno', 'My name is Juno and I prefer email.');
    await ingest(keyB, 'juno', 'My name is Bo and I prefer phone calls.');
    await request(t.http).post('/v1/memories/compile').set('X-API-Key', keyA).send({ subject_id: 'juno' }).expect(200);
    const context = await request(t.http).post('/v1/context').set('X-API-Key', keyA).send({ subject_id: 'juno', task: 'contact preference' }).expect(200);
    expect(JSON.stringify(context.body)).toContain('email');
    expect(JSON.stringify(context.body)).not.toContain('phone');
    const timelineB = await request(t.http).get('/v1/timeline?subject_id=juno').set('X-API-Key', keyB).expect(200);
    expect(timelineB.body.episodes).toHaveLength(1);
    // Operator paths are cross-tenant on purpose.
    const jobs = await request(t.http).get('/admin/jobs').set('X-API-Key', MASTER).expect(200);
    expect(jobs.body).toBeDefined();
    await request(t.http).get(`/admin/export/juno?tenant_id=${B}`).set('X-API-Key', MASTER).expect(200);

    const repo = new ForgetfulRepository();
    expect(tenantsOf(await repo.tenantsSeen(t.ds.manager, TenantScope.of(A)))).toEqual([A]);
    expect(tenantsOf(await t.ds.transaction((em) => repo.tenantsSeen(em, TenantScope.of(B))))).toEqual([B]);
    expect(tenantsOf(await repo.tenantsSeen(t.ds.manager, operatorScope()))).toEqual([A, B]);
    // Single-tenant mode's no-tenant scope is unfiltered too (contract rule 4), though not an operator's.
    expect(tenantsOf(await repo.tenantsSeen(t.ds.manager, TenantScope.ofRequest(null)))).toEqual([A, B]);
    // The owner (a superuser here) is not bound: the predicate really is missing.
    expect(tenantsOf(await repo.tenantsSeen(owner.manager, TenantScope.of(A)))).toEqual([A, B]);
  });
});
