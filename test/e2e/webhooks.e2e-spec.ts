import { createHmac } from 'node:crypto';
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import { webhooksCommand } from 'src/cli/webhooks.command';
import { loadConfig } from 'src/config/app-config';
import { WebhookDeliveryWorker } from 'src/modules/webhooks/webhook-delivery.worker';
import { createTestApp, isPglite, TestApp, testEnv } from '../app-factory';
import { captureOutput } from '../cli-capture';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Webhook receiver on 127.0.0.1:0; `reply` decides each answer (no answer at all: never responds). */
class Receiver {
  readonly received: Received[] = [];
  reply: (n: number, req: IncomingMessage, res: ServerResponse) => void = (_n, _req, res) => res.writeHead(200).end('ok');
  private server: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        this.reply(this.received.length, req, res);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A log destination that parses each JSON line into `into`. */
function logLines(into: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) into.push(JSON.parse(line));
      done();
    },
  });
}

const episode = (subject = 'wh-subject') => ({
  subject_id: subject,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: 'hello' }] },
});

async function ingest(t: TestApp, subject?: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await request(t.http).post('/v1/episodes').set(headers).send(episode(subject)).expect(201);
  return res.body.id;
}

async function eventRows(t: TestApp) {
  return t.ds.query(`SELECT id, event, status, attempts, last_error, last_status_code, tenant_id,
    extract(epoch FROM next_attempt_at - now())::float8 AS due_in_s, delivered_at FROM webhook_events ORDER BY created_at`);
}

/** Time travel: make every pending event due now (the backoff itself is checked separately). */
const makeDue = (t: TestApp) => t.ds.query(`UPDATE webhook_events SET next_attempt_at = now() WHERE status = 'pending'`);

describe('webhooks without WEBHOOK_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('writes no event rows when an episode is ingested', async () => {
    await ingest(t);
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM webhook_events`))[0].n).toBe(0);
    const stats = await request(t.http).get('/admin/webhooks/stats').expect(200);
    expect(stats.body).toEqual({ pending: 0, delivered: 0, dead_letter: 0, total: 0, oldest_pending_age_seconds: null });
  });
});

describe('webhooks in single-tenant mode, unsigned, over plain http', () => {
  const receiver = new Receiver();
  const lines: Record<string, unknown>[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const url = await receiver.start();
    t = await createTestApp({ SERVICE_WEBHOOK_URL: url, SERVICE_LOG_LEVEL: 'info' }, { logStream: logLines(lines) });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('sends data.tenant_id null and no tenant header when tenants are not used', async () => {
    await ingest(t, 'wh-single');
    expect(await t.app.get(WebhookDeliveryWorker).runOnce()).toBe(1);
    const { headers, body } = receiver.received[0];
    expect(JSON.parse(body).data).toMatchObject({ subject_id: 'wh-single', tenant_id: null });
    expect(headers['x-webhook-tenant-id']).toBeUndefined();
    expect(headers['x-webhook-signature']).toBeUndefined();
  });

  it('warns at start-up that deliveries are unsigned', () => {
    const warnings = lines.filter((l) => l.level === 40 && l.context === 'webhooks').map((l) => String(l.msg));
    expect(warnings).toEqual([expect.stringMatching(/unsigned.*SERVICE_WEBHOOK_SECRET/)]);
  });
});

describe('webhook start-up warnings', () => {
  it('warns at start-up about plain http to a host beyond loopback, naming the host but not the URL', async () => {
    const other: Record<string, unknown>[] = [];
    const app = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://hooks.example.com/in?token=t0ps3cret', SERVICE_WEBHOOK_SECRET: 's', SERVICE_LOG_LEVEL: 'info' }, { logStream: logLines(other) });
    await app.close();
    const warnings = other.filter((l) => l.level === 40 && l.context === 'webhooks').map((l) => String(l.msg));
    expect(warnings).toEqual([expect.stringMatching(/plain http to hooks\.example\.com/)]);
    expect(JSON.stringify(other)).not.toContain('t0ps3cret');
  });
});

describe('webhook delivery', () => {
  const receiver = new Receiver();
  let t: TestApp;
  let worker: WebhookDeliveryWorker;

  beforeAll(async () => {
    const url = await receiver.start();
    t = await createTestApp({
      SERVICE_WEBHOOK_URL: url,
      SERVICE_WEBHOOK_SECRET: 'wh-secret',
      SERVICE_WEBHOOK_TIMEOUT: '0.3',
      SERVICE_WEBHOOK_MAX_ATTEMPTS: '3',
      SERVICE_API_KEY: 'k',
      SERVICE_REQUIRE_TENANT: 'true',
    });
    worker = t.app.get(WebhookDeliveryWorker);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(async () => {
    await t.ds.query(`DELETE FROM webhook_events`);
    receiver.received.length = 0;
    receiver.reply = (_n, _req, res) => res.writeHead(200).end('ok');
  });

  const auth = { 'X-API-Key': 'k', 'X-Tenant-ID': 'acme' };

  it('posts {event, timestamp, data} with the event id, name and a verifiable signature, and marks it delivered', async () => {
    const episodeId = await ingest(t, 'wh-subject', auth);
    const [row] = await eventRows(t);
    expect(row).toMatchObject({ event: 'episode.created', status: 'pending', attempts: 0, tenant_id: 'acme' });

    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0];
    expect(headers['x-webhook-event-id']).toBe(row.id);
    expect(headers['x-webhook-event']).toBe('episode.created');
    expect(headers['content-type']).toBe('application/json');
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(['event', 'timestamp', 'data']);
    expect(parsed).toEqual({ event: 'episode.created', timestamp: expect.any(String), data: { id: episodeId, subject_id: 'wh-subject', tenant_id: 'acme' } });
    expect(headers['x-webhook-tenant-id']).toBe('acme');
    expect(new Date(parsed.timestamp).toISOString()).toBe(parsed.timestamp);

    const ts = headers['x-webhook-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', 'wh-secret').update(`${ts}.${body}`).digest('hex');
    expect(headers['x-webhook-signature']).toBe(`sha256=${expected}`);

    const [after] = await eventRows(t);
    expect(after).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null });
    expect(after.delivered_at).toBeInstanceOf(Date);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);

    const status = await request(t.http).get(`/admin/webhooks/${row.id}`).set('X-API-Key', 'k').expect(200);
    expect(status.body).toMatchObject({
      id: row.id,
      event: 'episode.created',
      status: 'delivered',
      attempts: 1,
      last_error: null,
      last_status_code: 200,
      next_attempt_at: null,
      tenant_id: 'acme',
      payload: parsed,
    });
    expect(typeof status.body.created_at).toBe('string');
    expect(typeof status.body.delivered_at).toBe('string');
  });

  it('names the tenant of every event in data.tenant_id and a header covered by the signature, so one receiver serves many tenants', async () => {
    await ingest(t, 'wh-a', auth);
    await ingest(t, 'wh-b', { ...auth, 'X-Tenant-ID': 'globex' });
    await request(t.http).post('/v1/memories/compile').set({ ...auth, 'X-Tenant-ID': 'globex' }).send({ subject_id: 'wh-b' }).expect(200);
    // Delivered before the delete: deleting a subject also removes its undelivered events.
    while ((await worker.runOnce()) > 0);
    await request(t.http).delete('/v1/subjects/wh-a').set(auth).expect(200);
    while ((await worker.runOnce()) > 0);
    const seen = receiver.received.map(({ headers, body }) => {
      const ts = headers['x-webhook-timestamp'] as string;
      // The receiver's check: the signature verifies, then the header must equal the signed data.tenant_id.
      expect(headers['x-webhook-signature']).toBe(`sha256=${createHmac('sha256', 'wh-secret').update(`${ts}.${body}`).digest('hex')}`);
      const parsed = JSON.parse(body);
      expect(headers['x-webhook-tenant-id']).toBe(parsed.data.tenant_id);
      return `${parsed.event}:${parsed.data.tenant_id}`;
    });
    expect(seen.sort()).toEqual(['episode.created:acme', 'episode.created:globex', 'memories.compiled:globex', 'subject.deleted:acme']);
  });

  it('retries a failing receiver with growing backoff and delivers once it accepts', async () => {
    receiver.reply = (n, _req, res) => res.writeHead(n <= 2 ? 500 : 200).end();
    await ingest(t, 'wh-subject', auth);

    await worker.runOnce();
    const [first] = await eventRows(t);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500' });
    // 5 s base with equal jitter: between 2.5 and 5 s.
    expect(first.due_in_s).toBeGreaterThan(2);
    expect(first.due_in_s).toBeLessThanOrEqual(5);
    // Not due yet: a second round sends nothing.
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);

    const status = await request(t.http).get(`/admin/webhooks/${first.id}`).set('X-API-Key', 'k').expect(200);
    expect(status.body).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500' });
    expect(new Date(status.body.next_attempt_at).getTime()).toBeGreaterThan(Date.now());

    await makeDue(t);
    await worker.runOnce();
    const [second] = await eventRows(t);
    expect(second).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 500 });
    // The step doubled: between 5 and 10 s, later than the first one.
    expect(second.due_in_s).toBeGreaterThan(4.5);
    expect(second.due_in_s).toBeLessThanOrEqual(10);
    expect(second.due_in_s).toBeGreaterThan(first.due_in_s - 0.5);

    await makeDue(t);
    await worker.runOnce();
    const [third] = await eventRows(t);
    expect(third).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null });
    // Every attempt carried the same event id, so a receiver can de-duplicate.
    expect(new Set(receiver.received.map((r) => r.headers['x-webhook-event-id']))).toEqual(new Set([first.id]));
  });

  it('records timeouts, dead-letters after WEBHOOK_MAX_ATTEMPTS, counts it, and a requeue delivers it', async () => {
    receiver.reply = () => undefined;
    await ingest(t, 'wh-subject', auth);
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      await worker.runOnce();
      expect(Date.now() - started).toBeLessThan(3000);
      await makeDue(t);
    }
    const [dead] = await eventRows(t);
    expect(dead).toMatchObject({ status: 'dead_letter', attempts: 3, last_status_code: null, last_error: 'timed out after 300 ms' });
    expect(receiver.received).toHaveLength(3);
    expect(await worker.runOnce()).toBe(0);

    const stats = await request(t.http).get('/admin/webhooks/stats').set('X-API-Key', 'k').expect(200);
    expect(stats.body).toMatchObject({ pending: 0, delivered: 0, dead_letter: 1, total: 1, oldest_pending_age_seconds: null });

    const requeued = await request(t.http).post('/admin/webhooks/dead-letters/requeue').set('X-API-Key', 'k').send({}).expect(200);
    expect(requeued.body).toEqual({ requeued: 1 });
    const [again] = await eventRows(t);
    expect(again).toMatchObject({ status: 'pending', attempts: 0 });
    expect(again.due_in_s).toBeLessThanOrEqual(0.1);

    receiver.reply = (_n, _req, res) => res.writeHead(204).end();
    expect(await worker.runOnce()).toBe(1);
    expect((await eventRows(t))[0]).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204 });
  });

  it('dead-letters at once on a 4xx the receiver will refuse again, but retries 429', async () => {
    receiver.reply = (_n, _req, res) => res.writeHead(400).end('bad');
    await ingest(t, 'wh-4xx', auth);
    await worker.runOnce();
    expect((await eventRows(t))[0]).toMatchObject({ status: 'dead_letter', attempts: 1, last_status_code: 400, last_error: 'HTTP 400' });

    await t.ds.query(`DELETE FROM webhook_events`);
    receiver.reply = (_n, _req, res) => res.writeHead(429).end();
    await ingest(t, 'wh-429', auth);
    await worker.runOnce();
    expect((await eventRows(t))[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 429 });
  });

  it('records a dropped connection as a retryable failure', async () => {
    receiver.reply = (_n, req) => req.socket.destroy();
    await ingest(t, 'wh-drop', auth);
    await worker.runOnce();
    const [row] = await eventRows(t);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(/^connection error: /);
  });

  describe('admin endpoints', () => {
    it('counts by status with total as the sum, the oldest pending age, and a tenant filter', async () => {
      await ingest(t, 's1', auth);
      await ingest(t, 's2', { ...auth, 'X-Tenant-ID': 'other' });
      await ingest(t, 's3', auth);
      await t.ds.query(`UPDATE webhook_events SET created_at = now() - interval '90 seconds' WHERE tenant_id = 'other'`);
      const [a] = await t.ds.query(`SELECT id FROM webhook_events WHERE tenant_id = 'acme' ORDER BY created_at LIMIT 1`);
      await t.ds.query(`UPDATE webhook_events SET status = 'dead_letter' WHERE id = $1`, [a.id]);

      const all = await request(t.http).get('/admin/webhooks/stats').set('X-API-Key', 'k').expect(200);
      expect(all.body).toMatchObject({ pending: 2, delivered: 0, dead_letter: 1, total: 3 });
      expect(all.body.oldest_pending_age_seconds).toBeGreaterThanOrEqual(89);
      expect(all.body.oldest_pending_age_seconds).toBeLessThan(200);

      const acme = await request(t.http).get('/admin/webhooks/stats?tenant_id=acme').set('X-API-Key', 'k').expect(200);
      expect(acme.body).toMatchObject({ pending: 1, delivered: 0, dead_letter: 1, total: 2 });
      expect(acme.body.oldest_pending_age_seconds).toBeLessThan(60);
    });

    it('needs the API key but no tenant header', async () => {
      const res = await request(t.http).get('/admin/webhooks/stats').expect(401);
      expect(res.body.error.code).toBe('missing_api_key');
      await request(t.http).get('/admin/webhooks/stats').set('X-API-Key', 'k').expect(200);
    });

    it('answers a malformed event id with 422 and an unknown one with 404 not_found', async () => {
      const bad = await request(t.http).get('/admin/webhooks/not-a-uuid').set('X-API-Key', 'k').expect(422);
      expect(bad.body.error.code).toBe('validation_error');
      expect(bad.body.error.details[0].loc).toEqual(['path', 'event_id']);
      const missing = await request(t.http).get('/admin/webhooks/00000000-0000-4000-8000-000000000000').set('X-API-Key', 'k').expect(404);
      expect(missing.body.error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    });

    it('requeues only the listed dead letters, and validates the list', async () => {
      await ingest(t, 's1', auth);
      await ingest(t, 's2', auth);
      await t.ds.query(`UPDATE webhook_events SET status = 'dead_letter', attempts = 3, last_error = 'HTTP 500'`);
      const [one] = await t.ds.query(`SELECT id FROM webhook_events ORDER BY created_at LIMIT 1`);
      const res = await request(t.http).post('/admin/webhooks/dead-letters/requeue').set('X-API-Key', 'k').send({ event_ids: [one.id] }).expect(200);
      expect(res.body).toEqual({ requeued: 1 });
      const rows = await t.ds.query(`SELECT id, status, attempts, last_error FROM webhook_events ORDER BY created_at`);
      expect(rows[0]).toEqual({ id: one.id, status: 'pending', attempts: 0, last_error: 'HTTP 500' });
      expect(rows[1]).toMatchObject({ status: 'dead_letter', attempts: 3 });
      // Requeueing a pending event does nothing.
      expect((await request(t.http).post('/admin/webhooks/dead-letters/requeue').set('X-API-Key', 'k').send({ event_ids: [one.id] }).expect(200)).body).toEqual({ requeued: 0 });
      await request(t.http).post('/admin/webhooks/dead-letters/requeue').set('X-API-Key', 'k').send({ event_ids: ['nope'] }).expect(422);
    });
  });
});

describe('webhook delivery across restarts', () => {
  const receiver = new Receiver();
  let url: string;
  beforeAll(async () => {
    url = await receiver.start();
  });
  afterAll(() => receiver.stop());

  it('delivers events left pending by a stopped app from the next app on the same database', async () => {
    const first = await createTestApp({ SERVICE_WEBHOOK_URL: url });
    await ingest(first, 'restart-1');
    await ingest(first, 'restart-2');
    await first.close();

    const second = await createTestApp({ SERVICE_WEBHOOK_URL: url }, { reset: false });
    try {
      expect(await second.app.get(WebhookDeliveryWorker).runOnce()).toBe(2);
      const rows = await eventRows(second);
      expect(rows.map((r: { status: string }) => r.status)).toEqual(['delivered', 'delivered']);
      expect(receiver.received.map((r) => JSON.parse(r.body).data.subject_id).sort()).toEqual(['restart-1', 'restart-2']);
    } finally {
      await second.close();
    }
  });

  it('delivers from the background loop when workers run, and shutdown waits for the delivery in flight', async () => {
    receiver.received.length = 0;
    let answered = 0;
    receiver.reply = (_n, _req, res) =>
      setTimeout(() => {
        answered++;
        res.writeHead(200).end();
      }, 300);
    const t = await createTestApp({ SERVICE_WEBHOOK_URL: url, SERVICE_WORKERS_ENABLED: 'true', SERVICE_WORKER_POLL_MS: '20' });
    await ingest(t, 'loop');
    for (let i = 0; i < 200 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.received).toHaveLength(1);
    await t.close();
    expect(answered).toBe(1);
    const after = await createTestApp({ SERVICE_WEBHOOK_URL: url }, { reset: false });
    try {
      expect((await eventRows(after))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      await after.close();
    }
    receiver.reply = (_n, _req, res) => res.writeHead(200).end('ok');
  });

  it('takes over an event whose claim lease ran out (its process died mid-delivery)', async () => {
    const t = await createTestApp({ SERVICE_WEBHOOK_URL: url });
    try {
      await ingest(t, 'lease');
      await t.ds.query(`UPDATE webhook_events SET locked_until = now() + interval '1 minute'`);
      expect(await t.app.get(WebhookDeliveryWorker).runOnce()).toBe(0);
      await t.ds.query(`UPDATE webhook_events SET locked_until = now() - interval '1 second'`);
      expect(await t.app.get(WebhookDeliveryWorker).runOnce()).toBe(1);
      expect((await eventRows(t))[0]).toMatchObject({ status: 'delivered' });
    } finally {
      await t.close();
    }
  });
});

describe('webhooks requeue-dead command', () => {
  async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const { value: code, stdout: out, stderr: err } = await captureOutput(() => webhooksCommand(loadConfig(testEnv({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' })), args));
    return { code, out, err };
  }

  it('re-queues the listed dead letters, then all of them, with progress on stderr', async () => {
    // The command opens its own connection: on PGlite no app may hold the only one meanwhile.
    const t = await createTestApp({ SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    for (const s of ['c1', 'c2', 'c3']) await ingest(t, s);
    await t.ds.query(`UPDATE webhook_events SET status = 'dead_letter', attempts = 8`);
    const ids: string[] = (await t.ds.query(`SELECT id FROM webhook_events ORDER BY created_at`)).map((r: { id: string }) => r.id);
    await t.close();

    const one = await runCli(['requeue-dead', '--id', ids[0], '--id', '00000000-0000-4000-8000-000000000000']);
    expect(one).toMatchObject({ code: 0, out: 'requeued 1\n' });
    expect(one.err).toContain('re-queued 1 (1 so far)');
    expect(one.err).toContain('1 listed event(s) were not dead letters');

    const rest = await runCli(['requeue-dead']);
    expect(rest).toMatchObject({ code: 0, out: 'requeued 2\n' });
    await expect(runCli(['requeue-dead', '--id', 'nope'])).rejects.toThrow(/UUID/);

    const after = await createTestApp({}, { reset: false });
    try {
      expect(await after.ds.query(`SELECT status, attempts FROM webhook_events`)).toEqual(Array(3).fill({ status: 'pending', attempts: 0 }));
    } finally {
      await after.close();
    }
  });
});

// PGlite serves one connection, so only one app can be open at a time: two concurrent
// workers need PostgreSQL.
if (!isPglite()) describe('two workers on one PostgreSQL database', () => {
  const receiver = new Receiver();
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const url = await receiver.start();
    // A slow receiver keeps both workers' claims overlapping.
    receiver.reply = (_n, _req, res) => setTimeout(() => res.writeHead(200).end(), 20);
    a = await createTestApp({ SERVICE_WEBHOOK_URL: url, SERVICE_DATABASE_POOL_SIZE: '5' });
    b = await createTestApp({ SERVICE_WEBHOOK_URL: url, SERVICE_DATABASE_POOL_SIZE: '5' }, { reset: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await receiver.stop();
  });

  it('delivers each event exactly once when both claim concurrently', async () => {
    const items = Array.from({ length: 60 }, (_, i) => episode(`pair-${i}`));
    await request(a.http).post('/v1/episodes/batch').send({ episodes: items.slice(0, 30) }).expect(201);
    for (const item of items.slice(30)) await request(b.http).post('/v1/episodes').send(item).expect(201);
    const wa = a.app.get(WebhookDeliveryWorker);
    const wb = b.app.get(WebhookDeliveryWorker);
    let claimedA = 0;
    let claimedB = 0;
    for (let round = 0; round < 10; round++) {
      const [na, nb] = await Promise.all([wa.runOnce(), wb.runOnce()]);
      claimedA += na;
      claimedB += nb;
      if (na + nb === 0) break;
    }
    const ids = receiver.received.map((r) => r.headers['x-webhook-event-id']);
    expect(ids).toHaveLength(31);
    expect(new Set(ids).size).toBe(31);
    expect(claimedA + claimedB).toBe(31);
    expect(claimedA).toBeGreaterThan(0);
    expect(claimedB).toBeGreaterThan(0);
    const [{ n }] = await a.ds.query(`SELECT count(*)::int AS n FROM webhook_events WHERE status = 'delivered'`);
    expect(n).toBe(31);
  });
});
