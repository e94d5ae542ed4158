import { MigrationInterface, QueryRunner } from 'typeorm';

/** As migration 0018's policy: cross-tenant transactions, or the row's own declared tenant. */
const VISIBLE = `current_setting('app.cross_tenant', true) = 'on' OR tenant_id = current_setting('app.tenant_id', true)`;

/**
 * Revision 0022: the history of a subject's health (issue 23, the console's trend). A row is
 * appended by the recomputation that changes the score or state (support.repository.ts,
 * appendHealthPoint), in its transaction, and the same statement keeps only the subject's newest
 * points, so a read of one subject's history has a row budget.
 *
 * Like the other keyless tables (0021) it has a surrogate `row_id`: an identity also orders the
 * points of a subject as they were appended, which recorded_at alone cannot (two recomputations
 * in one clock tick). The index leads with the tenant as every tenant index does, on the column
 * itself (not coalesce(tenant_id, ''): nothing here is unique, and the statements' tenant
 * predicates, `tenant_id = $1` or `tenant_id IS NULL`, are what a plain btree serves), and ends
 * with row_id so a subject's newest points are read from its end.
 * Row-level security as 0018's tenant tables.
 */
export class HealthHistory1700000000022 implements MigrationInterface {
  name = 'HealthHistory1700000000022';
  readonly revision = '0022_health_history';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE health_history (
        row_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant_id varchar(256),
        subject_id varchar(256) NOT NULL,
        score integer NOT NULL,
        state varchar(16) NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_health_history_tenant_subject ON health_history (tenant_id, subject_id, row_id)`);
    await q.query(`ALTER TABLE health_history ENABLE ROW LEVEL SECURITY`);
    await q.query(`ALTER TABLE health_history FORCE ROW LEVEL SECURITY`);
    await q.query(`CREATE POLICY tenant_scope ON health_history USING (${VISIBLE}) WITH CHECK (${VISIBLE})`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE health_history`);
  }
}
