import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { projectRoot } from 'src/common/project-root';
import { createTestApp, TestApp } from '../app-factory';

const KEY = 'console-gate-key';
const DIST = join(projectRoot(), 'console', 'dist');

/** The built console (`npm run build`, which `npm test` runs first): its hashed script. */
function builtScript(): string {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error('console/dist is missing: run `npm run build` before the tests');
  const js = readdirSync(join(DIST, 'assets')).find((f) => f.endsWith('.js'));
  if (!js) throw new Error('console/dist/assets holds no script');
  return js;
}

describe('the console at /console with an API key set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: KEY });
  });
  afterAll(() => t.close());

  it('serves the page without a key: it holds no data, and the policy keeps scripts and API calls to this origin', async () => {
    const res = await request(t.http).get('/console/').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<div id="app">');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('serves the hashed assets without a key, cached for good', async () => {
    const res = await request(t.http).get(`/console/assets/${builtScript()}`).expect(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('answers a client-side route (/console/anything) with the page, and a missing asset with a 404 envelope', async () => {
    expect((await request(t.http).get('/console/subjects/u-1').expect(200)).text).toContain('<div id="app">');
    const missing = await request(t.http).get('/console/assets/nope.js').expect(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
  });

  it('still refuses the API without a key, and a write to /console reaches the gate (401)', async () => {
    expect((await request(t.http).get('/v1/subjects').expect(401)).body.error.code).toBe('missing_api_key');
    expect((await request(t.http).post('/console/').send({}).expect(401)).body.error.code).toBe('missing_api_key');
  });

  it('does not open paths that only start with the same letters (/consoles)', async () => {
    await request(t.http).get('/consoles').expect(401);
  });
});

describe('the console turned off (SERVICE_CONSOLE_ENABLED=false)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: KEY, SERVICE_CONSOLE_ENABLED: 'false' }, { reset: false });
  });
  afterAll(() => t.close());

  it('refuses /console like any unknown route: 401 without a key, 404 with one', async () => {
    await request(t.http).get('/console/').expect(401);
    await request(t.http).get(`/console/assets/${builtScript()}`).expect(401);
    expect((await request(t.http).get('/console/').set('X-API-Key', KEY).expect(404)).body.error.code).toBe('not_found');
  });
});
