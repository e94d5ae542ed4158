import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0017: durable marks for the health recomputation that ingestion causes.
 *
 * An episode with a session changes its subject's health inputs; the service recomputes the
 * subject shortly after the commit (HealthRefresher, in memory) and emits subject.health_* when
 * the state changed. A process that died before that recomputation lost the change's event
 * until somebody happened to read the subject. Now the episode's INSERT also writes a mark row,
 * in the same statement (so in the same transaction, whoever inserts: ingest, import, an older
 * replica); every recomputation of the subject deletes its mark first, and a sweep recomputes
 * marks left behind (support.service.ts).
 *
 * The upsert on an existing mark updates nothing but locks it until the inserting transaction
 * ends (ON CONFLICT DO UPDATE … WHERE false): a recomputation deleting the mark waits for that
 * commit and then reads the new episode, so a mark is never consumed by a computation that
 * could not see its episode. Marks are locked in key order, so two batches cannot deadlock.
 */
export class HealthRefreshMarks1700000000017 implements MigrationInterface {
  name = 'HealthRefreshMarks1700000000017';
  readonly revision = '0017_health_refresh_marks';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE health_refresh_marks (
        tenant_id varchar(256),
        subject_id varchar(256) NOT NULL,
        marked_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_health_refresh_marks_tenant_subject ON health_refresh_marks ((coalesce(tenant_id, '')), subject_id)`);
    await q.query(`CREATE INDEX ix_health_refresh_marks_marked_at ON health_refresh_marks (marked_at)`);
    await q.query(`
      CREATE FUNCTION health_refresh_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO health_refresh_marks AS m (tenant_id, subject_id)
        SELECT tenant_id, subject_id FROM added WHERE session_id IS NOT NULL
        GROUP BY tenant_id, subject_id
        ORDER BY coalesce(tenant_id, ''), subject_id
        ON CONFLICT ((coalesce(tenant_id, '')), subject_id) DO UPDATE SET marked_at = m.marked_at WHERE false;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER episodes_health_refresh_mark AFTER INSERT ON episodes
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION health_refresh_mark()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER episodes_health_refresh_mark ON episodes`);
    await q.query(`DROP FUNCTION health_refresh_mark()`);
    await q.query(`DROP TABLE health_refresh_marks`);
  }
}
