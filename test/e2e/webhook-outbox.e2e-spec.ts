import { TenantScope } from 'src/common/db/tenant-scope';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { createTestApp, TestApp } from '../app-factory';

describe('webhook outbox rows', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
  });
  afterAll(() => t.close());

  it('stamps events with the wall clock in enqueue order, not the transaction start', async () => {
    const webhooks = t.app.get(WebhooksService);
    await t.ds.transaction(async (em) => {
      await webhooks.enqueueMany(em, TenantScope.of('acme'), [
        { event: 'subject.health_degraded', data: { n: 1 } },
        { event: 'subject.health_improved', data: { n: 2 } },
      ]);
      await em.query(`SELECT pg_sleep(0.02)`);
      await webhooks.enqueue(em, TenantScope.of('acme'), 'subject.deleted', { n: 3 });
    });
    const rows = await t.ds.query(`SELECT tenant_id, payload->'data'->>'n' AS n, created_at FROM webhook_events ORDER BY created_at`);
    expect(rows.map((r: { n: string }) => r.n)).toEqual(['1', '2', '3']);
    expect(rows.every((r: { tenant_id: string }) => r.tenant_id === 'acme')).toBe(true);
    // The third row was written 20 ms after the first two, inside the same transaction.
    expect(rows[2].created_at.getTime() - rows[1].created_at.getTime()).toBeGreaterThanOrEqual(15);
  });
});
