import { MigrationInterface, QueryRunner } from 'typeorm';

/** Revision 0005: persistent webhook delivery (outbox rows with retries and dead letters). */
export class WebhookEvents1700000000005 implements MigrationInterface {
  name = 'WebhookEvents1700000000005';
  readonly revision = '0005_webhook_events';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event varchar(64) NOT NULL,
        payload jsonb NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        last_error text,
        last_status_code integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz
      )`);
    await q.query(`CREATE INDEX ix_webhook_events_due ON webhook_events (status, next_attempt_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_events`);
  }
}
