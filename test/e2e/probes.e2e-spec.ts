import { EXPECTED_HEAD } from 'src/db/migrations';
import request from 'supertest';
import { READINESS_CACHE_MS } from 'src/modules/ops/ops.service';
import { createTestApp, isPglite, TestApp } from '../app-factory';

describe('probes and docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: 'secret-key' });
  });
  afterAll(() => t.close());

  it('GET /healthz answers ok without an API key and without touching the database', async () => {
    const res = await request(t.http).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('GET /health is the legacy alias of /healthz', async () => {
    expect((await request(t.http).get('/health').expect(200)).body).toEqual({ status: 'ok' });
  });

  it('GET /readyz reports ready with the engine and vector mode in use', async () => {
    const res = await request(t.http).get('/readyz').expect(200);
    expect(res.body.status).toBe('ready');
    expect(res.body.checks).toEqual({ database: 'ok', stuck_compile_jobs: 0 });
    expect(res.body.engine).toBe('postgres');
    expect(res.body.vector).toBe(isPglite() ? 'pgvector' : 'fallback');
    expect((await request(t.http).get('/ready').expect(200)).body.status).toBe('ready');
  });

  it('GET /readyz reports stuck compile jobs (running > 30 min) as degraded', async () => {
    // Its lease lapsed too (a live worker renews updated_at): a job nobody is running.
    await t.ds.query(`INSERT INTO compile_jobs (subject_id, status, started_at, updated_at) VALUES ('s', 'running', now() - interval '31 minutes', now() - interval '31 minutes')`);
    // Readiness is cached for about a second (the previous test's answer may still be served).
    await new Promise((r) => setTimeout(r, READINESS_CACHE_MS + 50));
    const res = await request(t.http).get('/readyz').expect(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.checks.stuck_compile_jobs).toBe(1);
    await t.ds.query(`DELETE FROM compile_jobs`);
  });

  it('serves the OpenAPI document and Swagger UI without a key', async () => {
    const spec = await request(t.http).get('/openapi.json').expect(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(spec.body.paths['/healthz']).toBeDefined();
    const ui = await request(t.http).get('/docs/').expect(200);
    expect(ui.text).toContain('swagger');
    expect((await request(t.http).get('/redoc').expect(200)).text).toContain('/openapi.json');
    const bundle = await request(t.http).get('/redoc/redoc.standalone.js').expect(200);
    expect(bundle.headers['content-type']).toContain('javascript');
  });

  it('GET /ops/migrations reports the head and compatibility, behind the API key', async () => {
    await request(t.http).get('/ops/migrations').expect(401);
    const res = await request(t.http).get('/ops/migrations').set('X-API-Key', 'secret-key').expect(200);
    expect(res.body).toEqual({
      current_revision: EXPECTED_HEAD,
      expected_head: EXPECTED_HEAD,
      is_compatible: true,
      pending_count: 0,
      pending_revisions: [],
      error: null,
      summary: expect.stringContaining('head'),
    });
  });
});
