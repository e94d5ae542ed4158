import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revision 0015: delivered webhook events counted as they change, so `/metrics` and
 * `/admin/webhooks/stats` never count the whole outbox per call (delivered rows are most of it;
 * pending and dead letters are few and counted through ix_webhook_events_due).
 *
 * Triggers keep `webhook_event_counts` true for every writer: this version's worker and prune,
 * an older replica during a rolling upgrade, an operator's own DELETE. They are per statement,
 * over transition tables, so a batch prune or a subject erasure adjusts each tenant's row once.
 * An UPDATE that changes no delivered count (a claim, a retry) writes nothing.
 */
export class WebhookEventCounts1700000000015 implements MigrationInterface {
  name = 'WebhookEventCounts1700000000015';
  readonly revision = '0015_webhook_event_counts';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_event_counts (
        tenant_id varchar(256),
        delivered bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE UNIQUE INDEX ux_webhook_event_counts_tenant ON webhook_event_counts ((coalesce(tenant_id, '')))`);
    await q.query(`
      INSERT INTO webhook_event_counts (tenant_id, delivered)
      SELECT tenant_id, count(*) FROM webhook_events WHERE status = 'delivered' GROUP BY tenant_id`);
    // One function for the statement triggers: the delivered rows a statement added and removed,
    // their difference per tenant applied in one upsert. No INSERT trigger: events are inserted
    // pending (every ingest would pay for it), and only a delivery attempt makes one delivered.
    await q.query(`
      CREATE FUNCTION webhook_event_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO webhook_event_counts AS c (tenant_id, delivered)
          SELECT tenant_id, -count(*) FROM removed WHERE status = 'delivered' GROUP BY tenant_id
          ON CONFLICT ((coalesce(tenant_id, ''))) DO UPDATE SET delivered = c.delivered + excluded.delivered;
        ELSE
          INSERT INTO webhook_event_counts AS c (tenant_id, delivered)
          SELECT tenant_id, sum(d) FROM (
            SELECT tenant_id, 1 AS d FROM added WHERE status = 'delivered'
            UNION ALL
            SELECT tenant_id, -1 AS d FROM removed WHERE status = 'delivered') x
          GROUP BY tenant_id HAVING sum(d) <> 0
          ON CONFLICT ((coalesce(tenant_id, ''))) DO UPDATE SET delivered = c.delivered + excluded.delivered;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_event_counts_update AFTER UPDATE ON webhook_events
      REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION webhook_event_counts_apply()`);
    await q.query(`
      CREATE TRIGGER webhook_event_counts_delete AFTER DELETE ON webhook_events
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION webhook_event_counts_apply()`);
    // TRUNCATE has no rows to count: the counts go with the table.
    await q.query(`
      CREATE FUNCTION webhook_event_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN DELETE FROM webhook_event_counts; RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER webhook_event_counts_truncate AFTER TRUNCATE ON webhook_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_event_counts_clear()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_event_counts_truncate ON webhook_events`);
    await q.query(`DROP TRIGGER webhook_event_counts_delete ON webhook_events`);
    await q.query(`DROP TRIGGER webhook_event_counts_update ON webhook_events`);
    await q.query(`DROP FUNCTION webhook_event_counts_clear()`);
    await q.query(`DROP FUNCTION webhook_event_counts_apply()`);
    await q.query(`DROP TABLE webhook_event_counts`);
  }
}
