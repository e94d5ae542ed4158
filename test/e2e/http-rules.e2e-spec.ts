import request from 'supertest';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { createTestApp, TestApp } from '../app-factory';

const episode = (over: Record<string, unknown> = {}) => ({
  subject_id: 'rules-subject',
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: 'hello' }] },
  ...over,
});

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message', 'request_id']);
  expect(res.body.error).toMatchObject({ code, message: expect.any(String), request_id: res.headers['x-request-id'] });
  expect(res.headers['x-request-id']).toBeTruthy();
}

describe('HTTP rules shared by every endpoint', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_MAX_BODY_BYTES: '4096' });
  });
  afterAll(() => t.close());

  describe('request id', () => {
    it('echoes a sane client X-Request-ID and uses it in error bodies', async () => {
      const res = await request(t.http).get('/v1/nowhere').set('X-Request-ID', 'client-id-42');
      expect(res.headers['x-request-id']).toBe('client-id-42');
      expect(res.body.error.request_id).toBe('client-id-42');
    });

    it.each([
      ['an SQL-looking value', "'; DROP TABLE episodes; --"],
      ['another SQL-looking value', '1; SELECT pg_sleep(5)--'],
      ['spaces, markup and percent escapes', ' id with <script>alert(1)</script> %0d%0a "quotes" \\ '.trim()],
      ['4,000 characters', 'r'.repeat(4000)],
    ])('echoes a printable client X-Request-ID exactly as sent (%s), in the header and in error bodies', async (_label, id) => {
      const notFound = await request(t.http).get('/v1/nowhere').set('X-Request-ID', id).expect(404);
      expect(notFound.headers['x-request-id']).toBe(id);
      expect(notFound.body.error.request_id).toBe(id);
      const invalid = await request(t.http).post('/v1/episodes').set('X-Request-ID', id).send({ subject_id: '' }).expect(422);
      expect(invalid.body.error.request_id).toBe(id);
      const ok = await request(t.http).get('/v1/subjects').set('X-Request-ID', id).expect(200);
      expect(ok.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['a tab', 'bad id\twith <script>'],
      ['a character outside ASCII', 'caf\u00e9'],
      ['4,001 characters', 'r'.repeat(4001)],
    ])('replaces a client X-Request-ID that cannot be echoed (%s) with a generated one', async (_label, id) => {
      const res = await request(t.http).get('/v1/nowhere').set('X-Request-ID', id).expect(404);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
    });

    it('generates one when the client sends none', async () => {
      const a = await request(t.http).get('/healthz');
      const b = await request(t.http).get('/healthz');
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });

  describe('error envelope', () => {
    it('answers an unknown route with 404 not_found', async () => {
      const res = await request(t.http).get('/v1/does-not-exist');
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.error.details).toBeNull();
    });

    it('answers a wrong method with 404 not_found in the envelope', async () => {
      expectEnvelope(await request(t.http).delete('/v1/episodes'), 404, 'not_found');
    });

    it('answers malformed JSON with 422 validation_error, never 5xx', async () => {
      const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send('{"subject_id": ');
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.details[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
    });

    it('answers a non-JSON content type with 415 unsupported_media_type', async () => {
      const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'text/plain').send('subject_id=x');
      expectEnvelope(res, 415, 'unsupported_media_type');
    });

    it('answers a body over SERVICE_MAX_BODY_BYTES with 413 payload_too_large', async () => {
      const res = await request(t.http).post('/v1/episodes').send(episode({ payload: { text: 'x'.repeat(5000) } }));
      expectEnvelope(res, 413, 'payload_too_large');
    });

    it('lists every failing field with loc, type and msg', async () => {
      const res = await request(t.http).post('/v1/episodes').send({ subject_id: '', type: 'x'.repeat(129), payload: [] });
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.message).toBe('Request validation failed');
      const locs = res.body.error.details.map((d: { loc: string[] }) => d.loc.join('.'));
      expect(locs).toEqual(expect.arrayContaining(['body.subject_id', 'body.source', 'body.type', 'body.payload']));
      for (const d of res.body.error.details) expect(d).toEqual({ type: expect.any(String), loc: expect.any(Array), msg: expect.any(String) });
    });

    it('answers a JSON array or scalar body with 422', async () => {
      expectEnvelope(await request(t.http).post('/v1/episodes').send([episode()]), 422, 'validation_error');
      expectEnvelope(await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send('"just a string"'), 422, 'validation_error');
    });

    it('answers a missing body with 422', async () => {
      expectEnvelope(await request(t.http).post('/v1/episodes'), 422, 'validation_error');
    });
  });

  describe('hostile input is refused before the database', () => {
    it('rejects NUL bytes anywhere in the body, naming the path', async () => {
      const res = await request(t.http).post('/v1/episodes').send(episode({ payload: { messages: [{ role: 'user', content: 'a\u0000b' }] } }));
      expectEnvelope(res, 422, 'validation_error');
      expect(res.body.error.details[0].loc).toEqual(['body', 'payload', 'messages', 0, 'content']);
    });

    it('rejects lone surrogates sent as JSON escapes', async () => {
      const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send('{"subject_id":"s","source":"u","type":"t","payload":{"x":"\\ud800"}}');
      expectEnvelope(res, 422, 'validation_error');
    });

    it('rejects numbers that overflow to Infinity', async () => {
      const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send('{"subject_id":"s","source":"u","type":"t","payload":{"n":1e999}}');
      expectEnvelope(res, 422, 'validation_error');
    });

    it('rejects JSON nested deeper than 64 levels', async () => {
      let nested = '1';
      for (let i = 0; i < 200; i++) nested = `{"a":${nested}}`;
      const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send(`{"subject_id":"s","source":"u","type":"t","payload":${nested}}`);
      expectEnvelope(res, 422, 'validation_error');
    });

    it('stores nothing for any rejected request', async () => {
      const rows = await t.ds.query(`SELECT count(*)::int AS n FROM episodes`);
      expect(rows[0].n).toBe(0);
    });

    it('ignores unknown fields instead of refusing them', async () => {
      const res = await request(t.http).post('/v1/episodes').send(episode({ idempotency_key: undefined, caller_id: 'x', emit_receipt: true })).expect(201);
      expect(res.body).not.toHaveProperty('caller_id');
    });
  });
});

describe('API key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: 'k-123' });
  });
  afterAll(() => t.close());

  it('answers a request without the key with 401 missing_api_key', async () => {
    const res = await request(t.http).post('/v1/episodes').send(episode());
    expectEnvelope(res, 401, 'missing_api_key');
    expect(res.body.error.message).toBe('X-API-Key header is required.');
  });

  it('answers a wrong key with 403 invalid_api_key', async () => {
    const res = await request(t.http).post('/v1/episodes').set('X-API-Key', 'k-124').send(episode());
    expectEnvelope(res, 403, 'invalid_api_key');
    expect(res.body.error.message).toBe('Invalid API key.');
  });

  it('accepts the right key in the header or as the api_key query parameter', async () => {
    await request(t.http).post('/v1/episodes').set('X-API-Key', 'k-123').send(episode()).expect(201);
    await request(t.http).post('/v1/episodes?api_key=k-123').send(episode()).expect(201);
  });

  it('checks the key before looking at the body', async () => {
    const res = await request(t.http).post('/v1/episodes').set('Content-Type', 'application/json').send('{broken');
    expectEnvelope(res, 401, 'missing_api_key');
  });

  it('leaves probes and docs open', async () => {
    await request(t.http).get('/healthz').expect(200);
    await request(t.http).get('/readyz').expect(200);
    await request(t.http).get('/openapi.json').expect(200);
  });
});

describe('tenant header', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true', SERVICE_TENANT_HEADER: 'X-Org' });
  });
  afterAll(() => t.close());

  it('answers a request without the configured header with 400 missing_tenant', async () => {
    const res = await request(t.http).post('/v1/episodes').send(episode());
    expectEnvelope(res, 400, 'missing_tenant');
    expect(res.body.error.message).toBe('X-Org header is required.');
  });

  it('stamps the tenant on stored rows', async () => {
    await request(t.http).post('/v1/episodes').set('X-Org', 'acme').send(episode()).expect(201);
    const rows = await t.ds.query(`SELECT tenant_id FROM episodes`);
    expect(rows).toEqual([{ tenant_id: 'acme' }]);
  });

  it('does not require the header on probes', async () => {
    await request(t.http).get('/readyz').expect(200);
  });
});

describe('CORS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_CORS_ORIGINS: '["https://a.example"]' });
  });
  afterAll(() => t.close());

  it('echoes a listed origin and gives no header to an unlisted one', async () => {
    const ok = await request(t.http).get('/healthz').set('Origin', 'https://a.example');
    expect(ok.headers['access-control-allow-origin']).toBe('https://a.example');
    const no = await request(t.http).get('/healthz').set('Origin', 'https://evil.example');
    expect(no.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('unexpected failures', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers 500 internal_error in the envelope with the request id and no internals', async () => {
    const spy = jest.spyOn(t.app.get(EpisodesService), 'create').mockRejectedValueOnce(new Error('secret stack detail at /srv/db'));
    try {
      const res = await request(t.http).post('/v1/episodes').set('X-Request-ID', 'boom-1').send(episode());
      expectEnvelope(res, 500, 'internal_error');
      expect(res.body.error.request_id).toBe('boom-1');
      expect(JSON.stringify(res.body)).not.toContain('secret stack detail');
    } finally {
      spy.mockRestore();
    }
  });
});
