import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { webhooksCommand } from 'src/cli/webhooks.command';
import { loadConfig } from 'src/config/app-config';
import { WebhookDeliveryWorker } from 'src/modules/webhooks/webhook-delivery.worker';
import { WebhookRetention } from 'src/modules/webhooks/webhook-retention';
import { WebhooksRepository } from 'src/modules/webhooks/webhooks.repository';
import { createTestApp, TestApp, testEnv } from '../app-factory';
import { captureOutput } from '../cli-capture';

/** Answers 410 (permanent: dead letter at once) for subjects starting with "dead", else 200. */
async function startReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(String(body.data.subject_id ?? '').startsWith('dead') ? 410 : 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

const ingest = (t: TestApp, subject: string, tenant?: string) =>
  request(t.http)
    .post('/v1/episodes')
    .set(tenant ? { 'X-Tenant-ID': tenant } : {})
    .send({ subject_id: subject, source: 'user', type: 'note', payload: { text: 'hello' } })
    .expect(201);

const byStatus = async (t: TestApp) =>
  Object.fromEntries(
    (await t.ds.query(`SELECT status, count(*)::int AS n FROM webhook_events GROUP BY status`)).map((r: { status: string; n: number }) => [r.status, r.n]),
  );

const stats = async (t: TestApp, tenant?: string) => (await request(t.http).get(`/admin/webhooks/stats${tenant ? `?tenant_id=${tenant}` : ''}`).expect(200)).body;

/** Moves events of the subjects into the past: as if created, attempted and delivered `days` ago. */
const age = (t: TestApp, subjects: string[], days: number) =>
  t.ds.query(
    `UPDATE webhook_events SET created_at = created_at - make_interval(days => $2), next_attempt_at = next_attempt_at - make_interval(days => $2),
       delivered_at = delivered_at - make_interval(days => $2)
     WHERE payload->'data'->>'subject_id' = ANY($1::text[])`,
    [subjects, days],
  );

function gauge(text: string, status: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`memory_webhook_events{status="${status}"}`));
  return Number(line?.split(' ')[1]);
}

describe('webhook outbox retention (WEBHOOK_RETENTION_DAYS, WEBHOOK_DEAD_LETTER_RETENTION_DAYS)', () => {
  let t: TestApp;
  let receiver: { url: string; server: Server };
  let retention: WebhookRetention;
  let worker: WebhookDeliveryWorker;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({
      SERVICE_WEBHOOK_URL: receiver.url,
      SERVICE_WEBHOOK_RETENTION_DAYS: '7',
      SERVICE_WEBHOOK_DEAD_LETTER_RETENTION_DAYS: '30',
    });
    retention = t.app.get(WebhookRetention);
    worker = t.app.get(WebhookDeliveryWorker);
  });
  afterAll(async () => {
    await t.close();
    receiver.server.closeAllConnections();
    await new Promise((r) => receiver.server.close(r));
  });
  beforeEach(() => t.ds.query(`TRUNCATE webhook_events`));

  /** 5 delivered 8 days ago, 2 delivered now, 2 dead letters and 2 pending events from 8 days ago. */
  async function seed(): Promise<void> {
    for (let i = 0; i < 5; i++) await ingest(t, 'old');
    for (let i = 0; i < 2; i++) await ingest(t, 'recent');
    for (let i = 0; i < 2; i++) await ingest(t, 'dead');
    while ((await worker.runOnce()) > 0);
    for (let i = 0; i < 2; i++) await ingest(t, 'waiting');
    await age(t, ['old', 'dead', 'waiting'], 8);
    expect(await byStatus(t)).toEqual({ delivered: 7, dead_letter: 2, pending: 2 });
  }

  it('deletes delivered events older than the retention in bounded batches, keeping recent ones, pending events and young dead letters', async () => {
    await seed();
    // One batch of two: a run never deletes more than batches × batch size.
    expect(await retention.runOnce(2, 1)).toEqual({ delivered: 2, dead_letter: 0 });
    expect(await retention.runOnce(2, 100)).toEqual({ delivered: 3, dead_letter: 0 });
    expect(await retention.runOnce(2, 100)).toEqual({ delivered: 0, dead_letter: 0 });
    const left = await t.ds.query(`SELECT payload->'data'->>'subject_id' AS subject, status FROM webhook_events ORDER BY 1, 2`);
    expect(left).toEqual([
      { subject: 'dead', status: 'dead_letter' },
      { subject: 'dead', status: 'dead_letter' },
      { subject: 'recent', status: 'delivered' },
      { subject: 'recent', status: 'delivered' },
      { subject: 'waiting', status: 'pending' },
      { subject: 'waiting', status: 'pending' },
    ]);
    expect(await stats(t)).toMatchObject({ pending: 2, delivered: 2, dead_letter: 2, total: 6 });
    const metrics = (await request(t.http).get('/metrics').expect(200)).text;
    expect([gauge(metrics, 'pending'), gauge(metrics, 'delivered'), gauge(metrics, 'dead_letter')]).toEqual([2, 2, 2]);
  });

  it('deletes dead letters only once they are older than their own retention, and pending events never', async () => {
    await seed();
    await age(t, ['dead', 'waiting'], 23);
    expect(await retention.runOnce()).toEqual({ delivered: 5, dead_letter: 2 });
    expect(await byStatus(t)).toEqual({ delivered: 2, pending: 2 });
  });

  it('keeps everything with both retentions 0', async () => {
    await seed();
    const keepAll = new WebhookRetention({ ...t.config, webhookRetentionDays: 0, webhookDeadLetterRetentionDays: 0 }, t.ds, t.app.get(WebhooksRepository));
    expect(await keepAll.runOnce()).toEqual({ delivered: 0, dead_letter: 0 });
    expect(await byStatus(t)).toEqual({ delivered: 7, dead_letter: 2, pending: 2 });
  });
});

describe('webhook outbox counts for /metrics and /admin/webhooks/stats', () => {
  let t: TestApp;
  let receiver: { url: string; server: Server };
  let worker: WebhookDeliveryWorker;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({ SERVICE_WEBHOOK_URL: receiver.url, SERVICE_REQUIRE_TENANT: 'true' });
    worker = t.app.get(WebhookDeliveryWorker);
  });
  afterAll(async () => {
    await t.close();
    receiver.server.closeAllConnections();
    await new Promise((r) => receiver.server.close(r));
  });

  it('keeps the delivered count per tenant through deliveries, subject erasure, a requeue and an operator DELETE, without counting the table', async () => {
    await ingest(t, 'a1', 'acme');
    await ingest(t, 'a2', 'acme');
    await ingest(t, 'b1', 'beta');
    await ingest(t, 'dead-a', 'acme');
    while ((await worker.runOnce()) > 0);
    await ingest(t, 'a3', 'acme');
    expect(await stats(t)).toMatchObject({ pending: 1, delivered: 3, dead_letter: 1, total: 5 });
    expect(await stats(t, 'acme')).toMatchObject({ pending: 1, delivered: 2, dead_letter: 1, total: 4 });
    expect(await stats(t, 'beta')).toMatchObject({ pending: 0, delivered: 1, dead_letter: 0, total: 1 });

    // Erasure deletes the subject's delivered events (and writes its own subject.deleted event).
    await request(t.http).delete('/v1/subjects/a1').set('X-Tenant-ID', 'acme').expect(200);
    expect(await stats(t, 'acme')).toMatchObject({ delivered: 1, dead_letter: 1 });

    // A requeued dead letter delivered later counts once it is delivered.
    receiver.server.removeAllListeners('request');
    receiver.server.on('request', (req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await request(t.http).post('/admin/webhooks/dead-letters/requeue').send({ tenant_id: 'acme' }).expect(200);
    while ((await worker.runOnce()) > 0);
    expect(await stats(t, 'acme')).toMatchObject({ pending: 0, delivered: 4, dead_letter: 0 });
    expect(await stats(t)).toMatchObject({ pending: 0, delivered: 5, dead_letter: 0, total: 5 });

    // An operator's own cleanup is counted too (the counts are kept by triggers in the database).
    await t.ds.query(`DELETE FROM webhook_events WHERE tenant_id = 'beta'`);
    expect(await stats(t, 'beta')).toMatchObject({ delivered: 0, total: 0 });

    // The delivered count is kept on state changes, not counted per call: a row written behind
    // the service's back as already delivered (the service only inserts pending events) is not seen.
    await t.ds.query(`INSERT INTO webhook_events (tenant_id, event, payload, status, delivered_at) VALUES ('acme', 'x', '{}', 'delivered', now())`);
    expect(await stats(t, 'acme')).toMatchObject({ delivered: 4 });
  });
});

describe('webhooks prune command', () => {
  async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const { value: code, stdout: out, stderr: err } = await captureOutput(() => webhooksCommand(loadConfig(testEnv({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' })), args));
    return { code, out, err };
  }

  it('deletes everything past the given retention until done, and leaves the counts exact', async () => {
    // The command opens its own connection: on PGlite no app may hold the only one meanwhile.
    const t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    for (let i = 0; i < 4; i++) await ingest(t, `p${i}`);
    await t.ds.query(`DELETE FROM webhook_events WHERE payload->'data'->>'subject_id' NOT IN ('p0', 'p1', 'p2', 'p3')`);
    // Delivered 2 and 10 days ago (as the worker leaves them), and one dead letter 10 days ago.
    await t.ds.query(`UPDATE webhook_events SET status = 'delivered', delivered_at = now() - interval '2 days', next_attempt_at = now() - interval '2 days'
      WHERE payload->'data'->>'subject_id' = 'p0'`);
    await t.ds.query(`UPDATE webhook_events SET status = 'delivered', delivered_at = now() - interval '10 days', next_attempt_at = now() - interval '10 days'
      WHERE payload->'data'->>'subject_id' IN ('p1', 'p2')`);
    await t.ds.query(`UPDATE webhook_events SET status = 'dead_letter', next_attempt_at = now() - interval '10 days' WHERE payload->'data'->>'subject_id' = 'p3'`);
    await t.close();

    const run = await runCli(['prune', '--days', '5']);
    expect(run).toMatchObject({ code: 0, out: 'pruned 2 delivered, 0 dead letter(s)\n' });
    expect(run.err).toContain('deleted 2 delivered, 0 dead letter(s) (2 so far)');
    expect(await runCli(['prune', '--days', '0', '--dead-letter-days', '5'])).toMatchObject({ code: 0, out: 'pruned 0 delivered, 1 dead letter(s)\n' });
    await expect(runCli(['prune', '--days', '-1'])).rejects.toThrow(/number of days/);

    const after = await createTestApp({}, { reset: false });
    try {
      expect(await byStatus(after)).toEqual({ delivered: 1 });
      expect(await after.ds.query(`SELECT coalesce(sum(delivered), 0)::int AS n FROM webhook_event_counts`)).toEqual([{ n: 1 }]);
    } finally {
      await after.close();
    }
  });
});
