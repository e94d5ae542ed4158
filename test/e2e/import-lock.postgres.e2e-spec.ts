import request from 'supertest';
import { SUBJECT_LOCK_KEY_SQL } from 'src/common/db/advisory-locks';
import { PYTHON_DOCUMENT } from '../fixtures/python-export-document';
import { until, useAppWithSecondSession } from '../support/second-session';

/**
 * An import writes a subject's episodes and memories as a compile does, so it takes the same
 * per-(tenant, subject) compile lock (SubjectLock) before it writes anything: it cannot
 * interleave with a compile, memory write or deletion of that subject.
 *
 * PostgreSQL only (jest.config.js leaves `*.postgres.e2e-spec.ts` out of the PGlite leg): the
 * proof needs a second session holding the lock while the import runs, and PGlite serves one
 * connection (a second session cannot exist there, and the import's lock could never be
 * contended).
 */

const TENANT = 'import-lock-tenant';
const SUBJECT = 'import-lock/subject';

describe('POST /admin/import and the subject compile lock', () => {
  const pg = useAppWithSecondSession();

  const importInto = (subject: string) =>
    request(pg.app.http)
      .post('/admin/import')
      .set('Content-Type', 'application/json')
      .send(`{"document": ${PYTHON_DOCUMENT}, "preserve_ids": false, "target_subject_id": ${JSON.stringify(subject)}, "target_tenant_id": "${TENANT}"}`);

  const rowsOf = async (subject: string) =>
    (await pg.app.ds.query(`SELECT (SELECT count(*)::int FROM episodes WHERE subject_id = $1) AS episodes, (SELECT count(*)::int FROM memories WHERE subject_id = $1) AS memories`, [subject]))[0];

  /** Sessions waiting for the compile lock of (TENANT, subject), with what else each holds. */
  const waiters = async (subject: string) =>
    (
      await pg.other.query(
        `SELECT w.pid,
           EXISTS (SELECT 1 FROM pg_locks h WHERE h.pid = w.pid AND h.granted AND h.relation IN ('episodes'::regclass, 'memories'::regclass, 'receipts'::regclass)) AS holds_table_locks
         FROM pg_locks w
         WHERE w.locktype = 'advisory' AND NOT w.granted
           AND ((w.classid::bigint << 32) | w.objid::bigint) = (SELECT ${SUBJECT_LOCK_KEY_SQL})`,
        [TENANT, subject],
      )
    ).rows as { pid: number; holds_table_locks: boolean }[];

  it('waits for a compile holding the subject lock, writing nothing until it is released, then imports', async () => {
    await pg.other.query('BEGIN');
    let released = false;
    try {
      // A compile of the subject in another process: the same lock, held until its transaction ends.
      await pg.other.query(`SELECT pg_advisory_xact_lock(${SUBJECT_LOCK_KEY_SQL})`, [TENANT, SUBJECT]);
      let settled = false;
      const pending = importInto(SUBJECT).then((res) => {
        settled = true;
        return res;
      });
      const [waiter] = await until('the import to wait for the subject lock', async () => {
        const found = await waiters(SUBJECT);
        return found.length > 0 ? found : undefined;
      });
      // Waiting on the lock before any write: it holds no lock on the rooms' tables yet.
      expect(waiter.holds_table_locks).toBe(false);
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      expect((await waiters(SUBJECT)).map((w) => w.pid)).toEqual([waiter.pid]);
      await pg.other.query('COMMIT');
      released = true;
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ subject_id: SUBJECT, tenant_id: TENANT, episodes_imported: 1, memories_imported: 1 });
      expect(await rowsOf(SUBJECT)).toEqual({ episodes: 1, memories: 1 });
    } finally {
      if (!released) await pg.other.query('ROLLBACK');
    }
  });

  it('is not held back by the lock of another subject of the same tenant', async () => {
    await pg.other.query('BEGIN');
    try {
      await pg.other.query(`SELECT pg_advisory_xact_lock(${SUBJECT_LOCK_KEY_SQL})`, [TENANT, `${SUBJECT}-other`]);
      const res = await importInto(`${SUBJECT}-free`).expect(200);
      expect(res.body).toMatchObject({ subject_id: `${SUBJECT}-free`, episodes_imported: 1, memories_imported: 1 });
      expect(await rowsOf(`${SUBJECT}-free`)).toEqual({ episodes: 1, memories: 1 });
    } finally {
      await pg.other.query('ROLLBACK');
    }
  });
});
