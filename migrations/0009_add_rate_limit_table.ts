import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0009: fixed-window counters of the distributed rate limiter, one row per client key. */
export class AddRateLimitTable1700000000009 implements MigrationInterface {
  name = 'AddRateLimitTable1700000000009';
  readonly revision = '0009_add_rate_limit_table';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_limits (
        key varchar(300) PRIMARY KEY,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL
      )`);
    await q.query(`CREATE INDEX ix_rate_limits_window_start ON rate_limits (window_start)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits`);
  }
}
