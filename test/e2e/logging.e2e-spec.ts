import { Writable } from 'node:stream';
import request from 'supertest';
import { createTestApp, TestApp } from '../app-factory';

class Capture extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

describe('structured logs', () => {
  let t: TestApp;
  const capture = new Capture();
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: 'top-secret-key', SERVICE_LOG_LEVEL: 'info', SERVICE_REQUIRE_TENANT: 'true' }, { logStream: capture });
  });
  afterAll(() => t.close());

  it('writes one access line per request with method, status, duration, request id and tenant', async () => {
    capture.lines = [];
    await request(t.http)
      .post('/v1/episodes')
      .set('X-API-Key', 'top-secret-key')
      .set('X-Tenant-ID', 'tenant-a')
      .set('X-Request-ID', 'log-test-1')
      .send({ subject_id: 'log-s', source: 'user', type: 'note', payload: { text: 'my card number is 4111 1111' } })
      .expect(201);
    const access = capture.lines.filter((l) => l.request_id === 'log-test-1' && l.res);
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ req: { method: 'POST', url: '/v1/episodes' }, res: { status: 201 }, tenant: 'tenant-a', responseTime: expect.any(Number) });
  });

  it('never logs the API key (header or query) or request payloads', async () => {
    capture.lines = [];
    await request(t.http).get('/ops/migrations?api_key=top-secret-key').set('X-Request-ID', 'log-test-2').expect(200);
    await request(t.http).post('/v1/episodes').set('X-API-Key', 'wrong-key-value').send({ payload: { text: 'private words' } }).expect(403);
    const text = JSON.stringify(capture.lines);
    expect(text).not.toContain('top-secret-key');
    expect(text).not.toContain('wrong-key-value');
    expect(text).not.toContain('private words');
    expect(text).not.toContain('4111');
    expect(text).toContain('api_key=[Redacted]');
  });

  it('redacts the key by the parameter name the server parses (api%5Fkey is api_key), on every route and outcome', async () => {
    capture.lines = [];
    await request(t.http).get('/ops/migrations?api%5Fkey=top-secret-key').expect(200);
    await request(t.http).get('/v1/subjects?api%5fkey=top-secret-key').set('X-Tenant-ID', 'tenant-a').expect(200);
    await request(t.http).get('/v1/no-such-route?%61pi_key=top-secret-key');
    await request(t.http).get('/v1/subjects?api%5Fkey=wrong-key-value&api_key%5B%5D=wrong-key-value').set('X-Tenant-ID', 'tenant-a').expect(403);
    const text = JSON.stringify(capture.lines);
    expect(capture.lines.filter((l) => l.req)).toHaveLength(4);
    expect(text).not.toContain('top-secret-key');
    expect(text).not.toContain('wrong-key-value');
    expect(text).toContain('api%5Fkey=[Redacted]');
  });

  it('never logs the search text of a query string', async () => {
    capture.lines = [];
    await request(t.http)
      .get('/v1/memories/search?subject_id=log-s&q=my%20secret%20diagnosis&limit=5')
      .set('X-API-Key', 'top-secret-key')
      .set('X-Tenant-ID', 'tenant-a')
      .expect(200);
    const text = JSON.stringify(capture.lines);
    expect(text).not.toContain('diagnosis');
    expect(text).toContain('q=[Redacted]');
    expect(text).toContain('subject_id=log-s');
  });

  it('logs a client X-Request-ID unchanged, SQL-looking or long, as request_id on every line of its request', async () => {
    for (const id of ["'; DROP TABLE episodes; --", '1; SELECT pg_sleep(5)--', `long-${'x'.repeat(3995)}`]) {
      capture.lines = [];
      const res = await request(t.http)
        .post('/v1/episodes')
        .set('X-API-Key', 'top-secret-key')
        .set('X-Tenant-ID', 'tenant-a')
        .set('X-Request-ID', id)
        .send({ subject_id: 'log-s', source: 'user' })
        .expect(422);
      expect(res.body.error.request_id).toBe(id);
      const access = capture.lines.filter((l) => l.res);
      expect(access).toHaveLength(1);
      expect(access[0]).toMatchObject({ request_id: id, res: { status: 422 } });
    }
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes`);
    expect(n).toBeGreaterThan(0);
  });

  it('writes no access lines for probes', async () => {
    capture.lines = [];
    await request(t.http).get('/healthz').expect(200);
    await request(t.http).get('/readyz').expect(200);
    expect(capture.lines.filter((l) => l.req)).toEqual([]);
  });
});

describe('access lines for refusals of the authentication gate', () => {
  let t: TestApp;
  const capture = new Capture();
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: 'gate-key', SERVICE_LOG_LEVEL: 'info', SERVICE_RATE_LIMIT_RPM: '3', SERVICE_RATE_LIMIT_STRATEGY: 'memory' }, { logStream: capture });
  });
  afterAll(() => t.close());

  it('logs 401, 403 and 429 answered before routing like any answer: status, request id, warn level', async () => {
    capture.lines = [];
    await request(t.http).get('/v1/subjects').set('X-Request-ID', 'gate-401').expect(401);
    await request(t.http).get('/v1/no-such-route').set('X-API-Key', 'wrong').set('X-Request-ID', 'gate-403').expect(403);
    await request(t.http).get('/v1/subjects').set('X-API-Key', 'gate-key').set('X-Request-ID', 'gate-200').expect(200);
    await request(t.http).get('/v1/subjects').set('X-API-Key', 'gate-key').set('X-Request-ID', 'gate-429').expect(429);
    const access = capture.lines.filter((l) => l.req);
    expect(access.map((l) => [l.request_id, (l.res as { status: number }).status])).toEqual([
      ['gate-401', 401],
      ['gate-403', 403],
      ['gate-200', 200],
      ['gate-429', 429],
    ]);
    expect(access.filter((l) => (l.res as { status: number }).status >= 400).every((l) => l.level === 40)).toBe(true);
    expect(JSON.stringify(capture.lines)).not.toContain('"wrong"');
  });
});
