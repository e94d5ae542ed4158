import { Client } from 'pg';
import { TenantScope } from 'src/common/db/tenant-scope';
import { SUBJECT_LOCK_KEY_SQL } from 'src/common/db/advisory-locks';
import { MemoriesRepository } from 'src/modules/memories/memories.repository';
import { createTestApp, isPglite, TestApp } from '../app-factory';

/**
 * The per-subject compile lock (MemoriesRepository.lockSubject) is keyed on (tenant, subject).
 * Pairs whose parts only differ in where a '/' falls are different subjects of different
 * tenants and must not share a lock, or one tenant's compile makes another's wait.
 */
describe('per-subject compile lock key', () => {
  let t: TestApp;
  let repo: MemoriesRepository;

  beforeAll(async () => {
    t = await createTestApp();
    repo = t.app.get(MemoriesRepository);
  });
  afterAll(() => t.close());

  const heldAdvisoryLocks = (q: (sql: string) => Promise<{ n: number }[]>) =>
    q(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted`).then((r) => r[0].n);

  it('takes two locks for tenant "a/b" subject "c" and tenant "a" subject "b/c", and one for the same pair twice', async () => {
    await t.ds.transaction(async (em) => {
      await repo.lockSubject(em, TenantScope.of('a/b'), 'c');
      expect(await heldAdvisoryLocks((s) => em.query(s))).toBe(1);
      await repo.lockSubject(em, TenantScope.of('a'), 'b/c');
      expect(await heldAdvisoryLocks((s) => em.query(s))).toBe(2);
      await repo.lockSubject(em, TenantScope.of('a'), 'b/c');
      // The single-tenant scope (NULL tenant) is apart from every named tenant.
      await repo.lockSubject(em, TenantScope.ofRequest(null), 'a/b/c');
      await repo.lockSubject(em, TenantScope.of(''), 'a/b/c');
      expect(await heldAdvisoryLocks((s) => em.query(s))).toBe(4);
    });
  });

  it('lets a compile of tenant "a" subject "b/c" proceed while tenant "a/b" subject "c" is locked, and makes the same pair wait', async () => {
    // PGlite serves one connection: a second session cannot exist there, so the held-lock
    // count above is that engine's proof; PostgreSQL also shows the waiting for real.
    if (isPglite()) return;
    const other = new Client({ connectionString: process.env.TEST_DB_URL });
    await other.connect();
    try {
      await t.ds.transaction(async (em) => {
        await repo.lockSubject(em, TenantScope.of('a/b'), 'c');
        const tryLock = async (tenant: string, subject: string) => {
          await other.query('BEGIN');
          try {
            // The key expression is the repository's own (the same SQL text with $1, $2).
            const [row] = (await other.query(`SELECT pg_try_advisory_xact_lock(${SUBJECT_LOCK_KEY_SQL}) AS ok`, [tenant, subject])).rows;
            return row.ok as boolean;
          } finally {
            await other.query('ROLLBACK');
          }
        };
        expect(await tryLock('a', 'b/c')).toBe(true);
        expect(await tryLock('a/b', 'c')).toBe(false);
      });
    } finally {
      await other.end();
    }
  });
});
