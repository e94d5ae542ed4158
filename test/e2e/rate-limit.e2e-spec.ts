import request from 'supertest';
import { RateLimitCleanup } from 'src/common/throttle/rate-limit-cleanup.service';
import { createTestApp, isPglite, TestApp } from '../app-factory';

/** Any limited route will do; this one is cheap and needs no body. */
const LIMITED = '/admin/webhooks/stats';

function expectRateLimited(res: request.Response, rpm: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: { code: 'rate_limited', message: `Rate limit exceeded. Max ${rpm} requests per minute.`, details: null, request_id: res.headers['x-request-id'] },
  });
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

const windows = (t: TestApp) => t.ds.query(`SELECT key, hits FROM rate_limits ORDER BY key`);

describe('rate limit, distributed strategy (default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '3', SERVICE_API_KEY: 'k', SERVICE_TRUSTED_PROXIES: 'loopback' });
  });
  afterAll(() => t.close());
  beforeEach(() => t.ds.query(`DELETE FROM rate_limits`));

  it('answers the request after the limit with 429 rate_limited, the limit in the message and Retry-After', async () => {
    for (let i = 0; i < 3; i++) await request(t.http).get(LIMITED).set('X-API-Key', 'k').expect(200);
    expectRateLimited(await request(t.http).get(LIMITED).set('X-API-Key', 'k'), 3);
    expect(await windows(t)).toEqual([{ key: expect.stringMatching(/^ip:/), hits: 4 }]);
  });

  it('counts every route against one per-IP budget and limits before checking the API key', async () => {
    await request(t.http).get(LIMITED).set('X-API-Key', 'k').expect(200);
    await request(t.http).get('/ops/migrations').set('X-API-Key', 'k').expect(200);
    await request(t.http).post('/v1/episodes').expect(401);
    // Over the limit, even a caller without a key gets the 429, not a 401.
    expectRateLimited(await request(t.http).post('/v1/episodes'), 3);
  });

  it('keeps probes and docs open while the client is limited', async () => {
    for (let i = 0; i < 4; i++) await request(t.http).get(LIMITED).set('X-API-Key', 'k');
    for (const path of ['/healthz', '/readyz', '/health', '/ready', '/openapi.json']) {
      for (let i = 0; i < 5; i++) await request(t.http).get(path).expect(200);
    }
    await request(t.http).get('/docs/').expect(200);
    expect(await windows(t)).toEqual([{ key: expect.any(String), hits: 4 }]);
  });

  it('limits each client IP separately (X-Forwarded-For counts behind a trusted proxy)', async () => {
    for (let i = 0; i < 4; i++) await request(t.http).get(LIMITED).set('X-API-Key', 'k').set('X-Forwarded-For', '203.0.113.7');
    expectRateLimited(await request(t.http).get(LIMITED).set('X-API-Key', 'k').set('X-Forwarded-For', '203.0.113.7'), 3);
    await request(t.http).get(LIMITED).set('X-API-Key', 'k').set('X-Forwarded-For', '198.51.100.9').expect(200);
    expect((await windows(t)).map((w: { key: string }) => w.key)).toEqual(['ip:198.51.100.9', 'ip:203.0.113.7']);
  });

  it('starts a new window once the 60 s window has passed, and the cleanup removes only expired windows', async () => {
    for (let i = 0; i < 4; i++) await request(t.http).get(LIMITED).set('X-API-Key', 'k');
    await t.ds.query(`UPDATE rate_limits SET window_start = now() - interval '61 seconds'`);
    await request(t.http).get(LIMITED).set('X-API-Key', 'k').expect(200);
    expect((await windows(t))[0].hits).toBe(1);

    await t.ds.query(`INSERT INTO rate_limits (key, window_start, hits) VALUES ('ip:192.0.2.1', now() - interval '2 hours', 9)`);
    expect(await t.app.get(RateLimitCleanup).runOnce()).toBe(1);
    expect(await windows(t)).toEqual([{ key: expect.not.stringMatching(/192\.0\.2\.1/), hits: 1 }]);
  });

  it('gives a Retry-After no longer than what is left of the window', async () => {
    for (let i = 0; i < 3; i++) await request(t.http).get(LIMITED).set('X-API-Key', 'k');
    await t.ds.query(`UPDATE rate_limits SET window_start = now() - interval '55.5 seconds'`);
    const res = await request(t.http).get(LIMITED).set('X-API-Key', 'k');
    expectRateLimited(res, 3);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(5);
  });
});

describe('rate limit without a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '2' });
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-For, so a client cannot pick a fresh IP per request', async () => {
    for (let i = 0; i < 2; i++) await request(t.http).get(LIMITED).set('X-Forwarded-For', `198.51.100.${i}`).expect(200);
    expectRateLimited(await request(t.http).get(LIMITED).set('X-Forwarded-For', '198.51.100.99'), 2);
  });
});

describe('rate limit disabled (RATE_LIMIT_RPM=0)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '0' });
  });
  afterAll(() => t.close());

  it('never limits and never touches the rate_limits table', async () => {
    for (let i = 0; i < 20; i++) await request(t.http).get(LIMITED).expect(200);
    expect(await windows(t)).toEqual([]);
  });
});

describe('rate limit, memory strategy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '2', SERVICE_RATE_LIMIT_STRATEGY: 'memory' });
  });
  afterAll(() => t.close());

  it('limits per process without the database', async () => {
    await request(t.http).get(LIMITED).expect(200);
    await request(t.http).get(LIMITED).expect(200);
    const res = await request(t.http).get(LIMITED);
    expectRateLimited(res, 2);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    await request(t.http).get('/healthz').expect(200);
    expect(await windows(t)).toEqual([]);
  });
});

// PGlite serves one connection, so two apps at once need PostgreSQL.
if (!isPglite()) describe('rate limit shared by two apps on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '4' });
    b = await createTestApp({ SERVICE_RATE_LIMIT_RPM: '4' }, { reset: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('counts requests to either app in one window', async () => {
    await request(a.http).get(LIMITED).expect(200);
    await request(b.http).get(LIMITED).expect(200);
    await Promise.all([request(a.http).get(LIMITED).expect(200), request(b.http).get(LIMITED).expect(200)]);
    expectRateLimited(await request(a.http).get(LIMITED), 4);
    expectRateLimited(await request(b.http).get(LIMITED), 4);
    expect(await windows(a)).toEqual([{ key: expect.any(String), hits: 6 }]);
  });
});
