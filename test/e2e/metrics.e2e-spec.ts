import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { WebhookDeliveryWorker } from 'src/modules/webhooks/webhook-delivery.worker';
import { createTestApp, TestApp } from '../app-factory';

const KEY = 'metrics-key';

/** The value of one series in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics after a scripted workload', () => {
  let t: TestApp;
  let receiver: Server;
  let text: string;

  beforeAll(async () => {
    // Receiver: accepts episode.created, refuses everything else for good (410: dead letter).
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.statusCode = JSON.parse(body).event === 'episode.created' ? 200 : 410;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    t = await createTestApp({ SERVICE_API_KEY: KEY, SERVICE_WEBHOOK_URL: hook, SERVICE_RATE_LIMIT_RPM: '40', SERVICE_RATE_LIMIT_STRATEGY: 'memory' });

    const api = () => ({
      post: (path: string) => request(t.http).post(path).set('X-API-Key', KEY),
      get: (path: string) => request(t.http).get(path).set('X-API-Key', KEY),
    });
    await api().post('/v1/episodes').send({ subject_id: 'm-1', source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Ola Berg.' }] } }).expect(201);
    await api().post('/v1/memories/compile').send({ subject_id: 'm-1' }).expect(200);
    await api().post('/v1/episodes').send({ subject_id: 'm-1', source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content: 'I prefer tea.' }] } }).expect(201);
    const job = await api().post('/v1/memories/compile').send({ subject_id: 'm-1', async: true }).expect(202);
    expect(await t.app.get(CompileJobsWorker).runOnce()).toBe(1);
    await api().get(`/v1/memories/compile/${job.body.job_id}`).expect(200);
    await api().post('/v1/context').send({ subject_id: 'm-1', task: 'Offer Ola a drink' }).expect(200);
    await api().get('/v1/no-such-route').expect(404);
    await request(t.http).get('/v1/subjects').expect(401);
    await t.app.get(WebhookDeliveryWorker).runOnce();
    // Over the limit: the 40-per-minute budget of this client is spent here.
    let limited = 0;
    for (let i = 0; i < 45 && limited === 0; i++) if ((await api().get('/v1/subjects')).status === 429) limited++;
    expect(limited).toBe(1);

    // /metrics itself is never rate limited, even now.
    const res = await request(t.http).get('/metrics').set('X-API-Key', KEY).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    text = res.text;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((r) => receiver.close(r));
  });

  it('needs the API key like the other operator routes, and accepts it as api_key for scrapers', async () => {
    await request(t.http).get('/metrics').expect(401);
    await request(t.http).get('/metrics').set('X-API-Key', 'wrong').expect(403);
    await request(t.http).get(`/metrics?api_key=${KEY}`).expect(200);
  });

  it('counts HTTP requests and latency by route template and status, never by raw URL', () => {
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/v1/episodes', status: '201' })).toBe(2);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/v1/memories/compile/:job_id', status: '200' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    // Refused by the authentication gate before routing: counted, without naming the route.
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'refused', status: '401' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/v1/context', status: '200' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/v1/context', le: '+Inf' })).toBe(1);
    expect(text).not.toMatch(/route="\/v1\/memories\/compile\/[0-9a-f]{8}-/);
  });

  it('reports compiles by mode and outcome, with durations and the job table by status', () => {
    expect(sample(text, 'memory_compiles_total', { mode: 'sync', status: 'completed' })).toBe(1);
    expect(sample(text, 'memory_compiles_total', { mode: 'async', status: 'completed' })).toBe(1);
    expect(sample(text, 'memory_compile_duration_seconds_count', { mode: 'async', status: 'completed' })).toBe(1);
    expect(sample(text, 'memory_compile_jobs', { status: 'completed' })).toBe(1);
    expect(sample(text, 'memory_compile_jobs', { status: 'pending' })).toBe(0);
  });

  it('reports webhook deliveries by outcome and the dead-letter queue', () => {
    expect(sample(text, 'memory_webhook_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(sample(text, 'memory_webhook_deliveries_total', { outcome: 'dead_letter' })).toBe(2);
    expect(sample(text, 'memory_webhook_events', { status: 'dead_letter' })).toBe(2);
    expect(sample(text, 'memory_webhook_events', { status: 'delivered' })).toBe(2);
    expect(sample(text, 'memory_webhook_delivery_duration_seconds_count', { result: '2xx' })).toBe(2);
  });

  it('reports rate-limit rejections, context tokens, the database pool and process metrics', () => {
    expect(sample(text, 'memory_rate_limit_rejections_total')).toBe(1);
    expect(sample(text, 'http_requests_total', { route: 'refused', status: '429' })).toBe(1);
    expect(sample(text, 'memory_context_tokens_count')).toBe(1);
    expect(sample(text, 'memory_context_tokens_sum')).toBeGreaterThan(0);
    expect(sample(text, 'memory_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'memory_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'memory_db_pool_waiting_requests')).toBe(0);
    expect(sample(text, 'memory_db_pool_max_connections')).toBe(t.config.databasePoolSize);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });
});
