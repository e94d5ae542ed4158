import request from 'supertest';
import { SupportService } from 'src/modules/support/support.service';
import { until, useAppWithSecondSession } from '../support/second-session';

/**
 * DELETE /v1/subjects/{id} locks a subject's support rows in the order every health
 * recomputation locks them (SupportRepository.deleteSubject: resolutions, refresh mark, cache
 * row, history), so a deletion and a recomputation of the same subject wait for each other at
 * most one way round, never both (40P01, a 500 to the client).
 *
 * PostgreSQL only (jest.config.js leaves `*.postgres.e2e-spec.ts` out of the PGlite leg): the
 * recomputation is a second session paused between its steps, and PGlite serves one connection.
 */

const SUBJECT = 'lock-order/subject';

describe('DELETE /v1/subjects/{id} against a health recomputation paused between its locks', () => {
  // `other`: a health recomputation in another process.
  const pg = useAppWithSecondSession();

  /**
   * Sessions waiting for the recomputation's transaction (a row it locked), with their statement:
   * asked of pg_locks by the transaction id, so a session seen for an instant in some other lock
   * wait on a loaded machine is not taken for the deletion.
   */
  const waitsOnOther = async (xid: string) => {
    // `other` asks from inside its open transaction, where PostgreSQL keeps the first
    // pg_stat_activity it read until the transaction ends (pg_locks is read live): without a
    // fresh snapshot a poll pairs the live lock with the statement the deletion ran at the first
    // poll (compile_jobs, on a loaded machine), not the one now waiting.
    await pg.other.query('SELECT pg_stat_clear_snapshot()');
    return (
      await pg.other.query(
        `SELECT a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE NOT l.granted AND l.locktype = 'transactionid' AND l.transactionid::text = $1`,
        [xid],
      )
    ).rows as { query: string }[];
  };

  /** Every other session of this database and what it waits for: printed if the deletion never waits at the mark. */
  const sessions = async () => {
    await pg.other.query('SELECT pg_stat_clear_snapshot()');
    return JSON.stringify(
      (
        await pg.other.query(
          `SELECT a.pid, a.state, a.wait_event_type, a.wait_event, left(a.query, 160) AS query,
                  (SELECT json_agg(json_build_object('locktype', l.locktype, 'mode', l.mode, 'relation', l.relation::regclass::text, 'granted', l.granted))
                     FROM pg_locks l WHERE l.pid = a.pid AND l.locktype <> 'virtualxid') AS locks
           FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()`,
        )
      ).rows,
    );
  };

  it('lets both finish: the deletion waits for the recomputation, which takes the cache row and commits', async () => {
    await request(pg.app.http)
      .post('/v1/episodes')
      .send({ subject_id: SUBJECT, session_id: 'chat-1', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'The export is broken' }] } })
      .expect(201);
    await pg.app.app.get(SupportService).drainHealthRefresh();
    // A cached health and history point, and a refresh mark left by an ingestion (the trigger's row).
    await request(pg.app.http).get(`/v1/subjects/${encodeURIComponent(SUBJECT)}/health`).expect(200);
    await pg.app.ds.query(`INSERT INTO health_refresh_marks (tenant_id, subject_id) VALUES (NULL, $1)`, [SUBJECT]);

    await pg.other.query('BEGIN');
    let open = true;
    try {
      // A recomputation in another process, first step: it takes the refresh mark (recomputeHealth).
      await pg.other.query(`SET LOCAL lock_timeout = '20s'`);
      expect((await pg.other.query(`DELETE FROM health_refresh_marks WHERE tenant_id IS NULL AND subject_id = $1`, [SUBJECT])).rowCount).toBe(1);

      const deletion = request(pg.app.http).delete(`/v1/subjects/${encodeURIComponent(SUBJECT)}`).then((res) => res);
      // The deletion reaches the mark and waits there, holding neither the cache row nor the history.
      const xid = String((await pg.other.query(`SELECT pg_current_xact_id()::text AS xid`)).rows[0].xid);
      // A generous wait: this file can be the first of a cold run on a loaded machine.
      const waiting = await until(
        'the deletion to wait for the refresh mark',
        async () => {
          const found = await waitsOnOther(xid);
          return found.length > 0 ? found : undefined;
        },
        40_000,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}; sessions: ${await sessions()}`);
      });
      expect(waiting.map((w) => w.query).join('\n')).toContain('health_refresh_marks');

      // Next steps of the recomputation: the cache row (free, so no cycle), its update and a history point.
      const cached = await pg.other.query(`SELECT state, score FROM health_cache WHERE tenant_id IS NULL AND subject_id = $1 FOR UPDATE`, [SUBJECT]);
      expect(cached.rows).toHaveLength(1);
      await pg.other.query(`UPDATE health_cache SET score = score, updated_at = now() WHERE tenant_id IS NULL AND subject_id = $1`, [SUBJECT]);
      await pg.other.query(`INSERT INTO health_history (tenant_id, subject_id, score, state, recorded_at) VALUES (NULL, $1, 1, 'at_risk', now())`, [SUBJECT]);
      await pg.other.query('COMMIT');
      open = false;

      const res = await deletion;
      expect(res.status).toBe(200);
      // The recomputation's history point committed before the deletion read the history: both points go.
      expect(res.body).toMatchObject({ subject_id: SUBJECT, health_state_deleted: 1, health_history_deleted: 2 });
      const [left] = await pg.app.ds.query(
        `SELECT (SELECT count(*)::int FROM health_cache WHERE subject_id = $1) AS cache,
                (SELECT count(*)::int FROM health_history WHERE subject_id = $1) AS history,
                (SELECT count(*)::int FROM health_refresh_marks WHERE subject_id = $1) AS marks`,
        [SUBJECT],
      );
      expect(left).toEqual({ cache: 0, history: 0, marks: 0 });
    } finally {
      if (open) await pg.other.query('ROLLBACK');
    }
  });
});
