import { Writable } from 'node:stream';
import request from 'supertest';
import { createHash, randomBytes } from 'node:crypto';
import { KEY_CACHE_MS } from 'src/modules/api-keys/api-keys.service';
import { READINESS_CACHE_MS } from 'src/modules/ops/ops.service';
import { keysCommand } from 'src/cli/keys.command';
import { loadConfig } from 'src/config/app-config';
import { createTestApp, TestApp, testEnv } from '../app-factory';
import { captureOutput } from '../cli-capture';

/** The secret part of `msk_<id>_<secret>`; the base64url secret may itself contain `_`. */
const secretOf = (key: string): string => key.slice('msk_'.length + 12 + 1);

const MASTER = 'master-key-of-the-contract';

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, request_id: expect.any(String) });
}

const episode = (subject: string, text = 'hello') => ({ subject_id: subject, source: 'user', type: 'note', payload: { text } });

async function createKey(t: TestApp, body: Record<string, unknown>, auth = { 'X-API-Key': MASTER }): Promise<{ id: string; key: string }> {
  const res = await request(t.http).post('/admin/api-keys').set(auth).send(body).expect(201);
  return res.body;
}

describe('stored API keys bound to tenants and roles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: MASTER, SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it('creates keys whose secret is shown once and never listed, and refuses a tenant on an operator key', async () => {
    const created = await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'client', tenant_id: 'acme', name: 'acme agent' }).expect(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{12}$/), role: 'client', tenant_id: 'acme', name: 'acme agent', revoked_at: null });
    expect(created.body.key).toMatch(/^msk_[0-9a-f]{12}_/);
    const listed = await request(t.http).get('/admin/api-keys').set('X-API-Key', MASTER).expect(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(secretOf(created.body.key));
    const stored = await t.ds.query(`SELECT secret_sha256 FROM api_keys WHERE id = $1`, [created.body.id]);
    expect(Buffer.from(stored[0].secret_sha256).toString('utf8')).not.toContain(secretOf(created.body.key));
    expectEnvelope(await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'operator', tenant_id: 'acme' }), 422, 'validation_error');
    expectEnvelope(await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'root' }), 422, 'validation_error');
  });

  it('scopes a bound client key to its tenant: header implied, another tenant 403, operator routes 403', async () => {
    const { key } = await createKey(t, { role: 'client', tenant_id: 'acme' });
    // No tenant header needed: the binding is the scope.
    await request(t.http).post('/v1/episodes').set('Authorization', `Bearer ${key}`).send(episode('juno')).expect(201);
    await request(t.http).post('/v1/episodes').set('X-API-Key', key).set('X-Tenant-ID', 'acme').send(episode('juno')).expect(201);
    expectEnvelope(await request(t.http).post('/v1/episodes').set('X-API-Key', key).set('X-Tenant-ID', 'globex').send(episode('juno')), 403, 'forbidden');
    const rows = await t.ds.query(`SELECT DISTINCT tenant_id FROM episodes WHERE subject_id = 'juno'`);
    expect(rows).toEqual([{ tenant_id: 'acme' }]);
    for (const path of ['/admin/jobs', '/admin/api-keys', '/ops/migrations', '/metrics', '/admin/export/juno', '/admin/no-such-route']) {
      expectEnvelope(await request(t.http).get(path).set('X-API-Key', key), 403, 'forbidden');
    }
    expectEnvelope(await request(t.http).post('/admin/import').set('X-API-Key', key).send({ document: {} }), 403, 'forbidden');
    // An unknown client route is a 404 only now that the key is accepted.
    expectEnvelope(await request(t.http).get('/v1/no-such-route').set('X-API-Key', key), 404, 'not_found');
  });

  it('gives a stored operator key the operator surface only', async () => {
    const { key } = await createKey(t, { role: 'operator' });
    await request(t.http).get('/admin/jobs').set('Authorization', `Bearer ${key}`).expect(200);
    await request(t.http).get('/ops/migrations').set('X-API-Key', key).expect(200);
    expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', key).set('X-Tenant-ID', 'acme'), 403, 'forbidden');
    const another = await createKey(t, { role: 'client', tenant_id: 'globex' }, { 'X-API-Key': key });
    expect(another.key).toMatch(/^msk_/);
  });

  it('rotates a key (old secret refused at once) and revokes it', async () => {
    const { id, key } = await createKey(t, { role: 'client', tenant_id: 'acme' });
    await request(t.http).get('/v1/subjects').set('X-API-Key', key).expect(200);
    const rotated = await request(t.http).post(`/admin/api-keys/${id}/rotate`).set('X-API-Key', MASTER).expect(200);
    expect(rotated.body).toMatchObject({ id, role: 'client', tenant_id: 'acme', rotated_at: expect.any(String) });
    expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', key), 403, 'invalid_api_key');
    await request(t.http).get('/v1/subjects').set('X-API-Key', rotated.body.key).expect(200);
    const revoked = await request(t.http).delete(`/admin/api-keys/${id}`).set('X-API-Key', MASTER).expect(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', rotated.body.key), 403, 'invalid_api_key');
    expectEnvelope(await request(t.http).post(`/admin/api-keys/${id}/rotate`).set('X-API-Key', MASTER), 404, 'not_found');
    expectEnvelope(await request(t.http).delete('/admin/api-keys/0123456789ab').set('X-API-Key', MASTER), 404, 'not_found');
  });

  // Another replica shares only the table: changing the row behind this app's back is what a
  // create, rotate or revoke on another replica looks like from here.
  it('stops a key revoked on another replica within KEY_CACHE_MS, without a restart', async () => {
    const { id, key } = await createKey(t, { role: 'client', tenant_id: 'acme' });
    await request(t.http).get('/v1/subjects').set('X-API-Key', key).expect(200);
    await t.ds.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [id]);
    await new Promise((r) => setTimeout(r, KEY_CACHE_MS + 100));
    expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', key), 403, 'invalid_api_key');
  });

  it('accepts a key created or rotated on another replica at once', async () => {
    const secret = randomBytes(32).toString('base64url');
    const id = randomBytes(6).toString('hex');
    await t.ds.query(`INSERT INTO api_keys (id, role, bound_tenant_id, secret_sha256) VALUES ($1, 'client', 'acme', $2)`, [id, createHash('sha256').update(secret).digest()]);
    await request(t.http).get('/v1/subjects').set('X-API-Key', `msk_${id}_${secret}`).expect(200);
    const rotated = randomBytes(32).toString('base64url');
    await t.ds.query(`UPDATE api_keys SET secret_sha256 = $2 WHERE id = $1`, [id, createHash('sha256').update(rotated).digest()]);
    await request(t.http).get('/v1/subjects').set('X-API-Key', `msk_${id}_${rotated}`).expect(200);
  });

  it('keeps the contract key working as operator and client, in any tenant', async () => {
    await request(t.http).post('/v1/episodes').set('X-API-Key', MASTER).set('X-Tenant-ID', 'globex').send(episode('g')).expect(201);
    await request(t.http).get('/admin/jobs').set('Authorization', `Bearer ${MASTER}`).expect(200);
  });

  it('closes the _snapshot/ namespace to client keys on REST and MCP inputs, not to the contract key', async () => {
    const { key } = await createKey(t, { role: 'client', tenant_id: 'acme' });
    const reserved = '_snapshot/demo/v1';
    // Seeding tools use the contract key: still allowed.
    await request(t.http).post('/v1/episodes').set('X-API-Key', MASTER).set('X-Tenant-ID', 'acme').send(episode(reserved)).expect(201);
    const c = request(t.http);
    expectEnvelope(await c.post('/v1/episodes').set('X-API-Key', key).send(episode(reserved)), 403, 'forbidden');
    expectEnvelope(await request(t.http).post('/v1/episodes/batch').set('X-API-Key', key).send({ episodes: [episode('ok'), episode(reserved)] }), 403, 'forbidden');
    expectEnvelope(await request(t.http).get(`/v1/timeline?subject_id=${encodeURIComponent(reserved)}`).set('X-API-Key', key), 403, 'forbidden');
    expectEnvelope(await request(t.http).delete(`/v1/subjects/${encodeURIComponent(reserved)}`).set('X-API-Key', key), 403, 'forbidden');
    expectEnvelope(await request(t.http).post('/v1/memories/compile').set('X-API-Key', key).send({ subject_id: reserved }), 403, 'forbidden');
    expectEnvelope(await request(t.http).post('/v1/context').set('X-API-Key', key).send({ subject_id: reserved, task: 'x' }), 403, 'forbidden');
    const mcp = await request(t.http)
      .post('/mcp')
      .set('X-API-Key', key)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_timeline', arguments: { subject_id: reserved } } });
    expect(JSON.stringify(mcp.body)).toContain('forbidden');
    expect(JSON.stringify(mcp.body)).not.toContain('hello');
    expect(Number((await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = $1`, [reserved]))[0].n)).toBe(1);
  });
});

describe('/mcp Origin and Host allow-list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_CORS_ORIGINS: '["https://app.example"]' });
  });
  afterAll(() => t.close());

  const list = () => request(t.http).post('/mcp').set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

  it('answers a foreign Origin or Host with 403 and serves loopback, listed and Origin-less callers', async () => {
    expectEnvelope(await list().set('Origin', 'https://evil.example'), 403, 'forbidden');
    expectEnvelope(await list().set('Host', 'rebind.evil.example'), 403, 'forbidden');
    expect((await list().set('Origin', 'http://localhost:5173')).status).toBe(200);
    expect((await list().set('Origin', 'https://app.example')).status).toBe(200);
    expect((await list().set('Host', 'app.example')).status).toBe(200);
    expect((await list()).status).toBe(200);
  });
});

class Capture extends Writable {
  lines: { level: number; msg: string }[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

describe('open access (no API key, no stored key)', () => {
  let t: TestApp;
  const capture = new Capture();
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_LOG_LEVEL: 'warn' }, { logStream: capture });
  });
  afterAll(() => t.close());

  it('warns loudly at start-up, naming the bind address and the browser exposure', () => {
    const warning = capture.lines.find((l) => l.msg.startsWith('OPEN ACCESS'));
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toContain('0.0.0.0:8100');
    expect(warning?.msg).toContain('any web page');
  });

  it('reports auth "open" until a stored key exists, then requires a key', async () => {
    expect((await request(t.http).get('/readyz').expect(200)).body.auth).toBe('open');
    const { key } = await createKey(t, { role: 'operator' }, {} as { 'X-API-Key': string });
    // At once: open access is never decided from a remembered count.
    expectEnvelope(await request(t.http).get('/v1/subjects'), 401, 'missing_api_key');
    await request(t.http).get('/admin/jobs').set('X-API-Key', key).expect(200);
    await new Promise((r) => setTimeout(r, READINESS_CACHE_MS + 100));
    expect((await request(t.http).get('/readyz').expect(200)).body.auth).toBe('key');
    await request(t.http).delete(`/admin/api-keys/${key.split('_')[1]}`).set('X-API-Key', key).expect(200);
    await request(t.http).get('/v1/subjects').expect(200);
  });

  it('closes open access at once when another replica creates the first key', async () => {
    await request(t.http).get('/v1/subjects').expect(200);
    await t.ds.query(`INSERT INTO api_keys (id, role, secret_sha256) VALUES ('0123456789ab', 'operator', $1)`, [createHash('sha256').update('x').digest()]);
    expectEnvelope(await request(t.http).get('/v1/subjects'), 401, 'missing_api_key');
    expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', 'guess'), 403, 'invalid_api_key');
  });

  it('refuses every request sent after the first key lands, while earlier requests are still being checked', async () => {
    await t.ds.query(`DELETE FROM api_keys`);
    const send = (n: number) => Array.from({ length: n }, () => request(t.http).get('/v1/subjects').then((r) => r.status));
    // Concurrent requests share the "any key?" read (FreshRead, whose unit spec pins the order);
    // none sent after the key landed may take an answer read before it, nor a remembered one.
    const before = send(24);
    await t.ds.query(`INSERT INTO api_keys (id, role, secret_sha256) VALUES ('0123456789ac', 'operator', $1)`, [createHash('sha256').update('y').digest()]);
    const after = send(24);
    expect(new Set(await Promise.all(after))).toEqual(new Set([401]));
    expect((await Promise.all(before)).every((s) => s === 200 || s === 401)).toBe(true);
  });
});

describe('keys CLI command', () => {
  const config = () => loadConfig(testEnv({ SERVICE_API_KEY: MASTER }));
  async function cli(args: string[]): Promise<string> {
    const { value: code, stdout } = await captureOutput(() => keysCommand(config(), args));
    expect(code).toBe(0);
    return stdout;
  }

  it('creates, lists, rotates and revokes keys that the running service honours without a restart', async () => {
    // The embedded engine serves one connection: the command opens its own while no app runs.
    await (await createTestApp()).close();
    const created = JSON.parse(await cli(['create', '--role', 'client', '--tenant', 'acme', '--name', 'cli agent']));
    expect(created).toMatchObject({ role: 'client', tenant_id: 'acme', name: 'cli agent', key: expect.stringMatching(/^msk_/) });
    const listed = (await cli(['list'])).trim().split('\n').map((l) => JSON.parse(l));
    expect(listed).toEqual([expect.objectContaining({ id: created.id })]);
    expect(listed[0].key).toBeUndefined();
    const rotated = JSON.parse(await cli(['rotate', created.id]));
    let t = await createTestApp({ SERVICE_API_KEY: MASTER }, { reset: false });
    try {
      expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', created.key), 403, 'invalid_api_key');
      await request(t.http).get('/v1/subjects').set('X-API-Key', rotated.key).expect(200);
    } finally {
      await t.close();
    }
    expect(JSON.parse(await cli(['revoke', created.id])).revoked_at).toEqual(expect.any(String));
    t = await createTestApp({ SERVICE_API_KEY: MASTER }, { reset: false });
    try {
      expectEnvelope(await request(t.http).get('/v1/subjects').set('X-API-Key', rotated.key), 403, 'invalid_api_key');
    } finally {
      await t.close();
    }
  });
});
