import { AddressInfo, connect } from 'node:net';
import request from 'supertest';
import { READINESS_CACHE_MS } from 'src/modules/ops/ops.service';
import { MAX_JSON_DEPTH, MAX_JSON_NODES } from 'src/common/http/json-safety';
import { createTestApp, TestApp } from '../app-factory';

const KEY = 'edge-key';

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, request_id: expect.any(String) });
}

/**
 * Sends the request line, headers and the first KiB of a body that claims `declared` bytes, then
 * waits for an answer without sending the rest. A server that reads the body before deciding
 * never answers; one that decides first answers at once.
 */
function answerBeforeBody(port: number, method: string, path: string, headers: Record<string, string>, declared = 10 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer before the body was sent (${method} ${path}); got ${JSON.stringify(text.slice(0, 200))}`));
    }, 5000);
    socket.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.includes('\r\n\r\n') && /"request_id"/.test(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', () => undefined);
    const head = Object.entries({ Host: 'localhost', 'Content-Type': 'application/json', 'Content-Length': String(declared), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`);
    socket.write('{"subject_id":"s","source":"u","type":"n","payload":{"a":[' + '0,'.repeat(500));
  });
}

describe('authentication before routing and before the body (API key set)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: KEY });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it.each([
    ['POST', '/v1/episodes'],
    ['POST', '/no-such-route'],
    ['POST', '/admin/import'],
    ['POST', '/mcp'],
  ])('answers %s %s without a key with 401 before reading the body', async (method, path) => {
    const answer = await answerBeforeBody(port, method, path, {});
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(answer).toContain('"missing_api_key"');
    expect(answer.toLowerCase()).toContain('connection: close');
  });

  it('reads and throws away a refused body of legal size, so a caller still writing gets its 401 and no reset', async () => {
    // The answer comes after the first 64 KiB; the rest is written only then. A server that
    // closed at once would reset the connection under that write (EPIPE / ECONNRESET).
    const body = `{"subject_id":"s","source":"u","type":"n","payload":{"t":"${'x'.repeat(1_500_000)}"}}`;
    const result = await new Promise<{ text: string; error?: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let rest = false;
      const timer = setTimeout(() => (socket.destroy(), resolve({ text, error: 'timeout' })), 15_000);
      socket.on('error', (err) => (clearTimeout(timer), resolve({ text, error: err.message })));
      socket.on('end', () => (clearTimeout(timer), socket.end(), resolve({ text })));
      socket.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (!rest && text.includes('"request_id"')) {
          rest = true;
          socket.write(body.slice(65_536));
        }
      });
      socket.write(`POST /v1/episodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 65_536)}`);
    });
    expect(result.error).toBeUndefined();
    expect(result.text).toMatch(/^HTTP\/1\.1 401/);
    expect(result.text.toLowerCase()).toContain('connection: close');
    expect(Number((await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 's'`))[0].n)).toBe(0);
  });

  it('answers a wrong key with 403 before reading the body, on a known and an unknown route', async () => {
    for (const path of ['/v1/episodes', '/v1/no-such-route']) {
      const answer = await answerBeforeBody(port, 'POST', path, { 'X-API-Key': 'wrong' });
      expect(answer).toMatch(/^HTTP\/1\.1 403/);
      expect(answer).toContain('"invalid_api_key"');
    }
  });

  it('answers an unknown route 401/403 without a valid key and 404 with one, never parsing its body', async () => {
    for (const [method, path] of [['get', '/v1/no-such-route'], ['post', '/no-such-route'], ['delete', '/admin/nothing-here']] as const) {
      expectEnvelope(await request(t.http)[method](path), 401, 'missing_api_key');
      expectEnvelope(await request(t.http)[method](path).set('X-API-Key', 'nope'), 403, 'invalid_api_key');
      expectEnvelope(await request(t.http)[method](path).set('X-API-Key', KEY).set('Content-Type', 'text/plain').send('not json at all'), 404, 'not_found');
    }
    expectEnvelope(await request(t.http).post('/no-such-route').set('X-API-Key', KEY).set('Content-Type', 'application/json').send('{"broken": '), 404, 'not_found');
  });

  it('accepts the key as Authorization: Bearer, as agents and MCP clients send it', async () => {
    await request(t.http).get('/v1/subjects').set('Authorization', `Bearer ${KEY}`).expect(200);
    expectEnvelope(await request(t.http).get('/v1/subjects').set('Authorization', 'Bearer wrong'), 403, 'invalid_api_key');
    expectEnvelope(await request(t.http).get('/v1/subjects').set('Authorization', `Basic ${KEY}`), 401, 'missing_api_key');
  });

  it('refuses a body with more JSON values than the cap before parsing it (422 too_many_values)', async () => {
    const zeros = `{"subject_id":"s","source":"u","type":"n","payload":{"a":[${'0,'.repeat(MAX_JSON_NODES)}0]}}`;
    const res = await request(t.http).post('/v1/episodes').set('X-API-Key', KEY).set('Content-Type', 'application/json').send(zeros);
    expectEnvelope(res, 422, 'validation_error');
    expect(res.body.error.details[0]).toMatchObject({ type: 'too_many_values', loc: ['body'] });
    const keys = `{"subject_id":"s","source":"u","type":"n","payload":{${Array.from({ length: MAX_JSON_NODES }, (_, i) => `"k${i}":1`).join(',')}}}`;
    expect((await request(t.http).post('/v1/episodes').set('X-API-Key', KEY).set('Content-Type', 'application/json').send(keys)).body.error.details[0].type).toBe('too_many_values');
    expect(Number((await t.ds.query(`SELECT count(*)::int AS n FROM episodes`))[0].n)).toBe(0);
  });

  it('refuses nesting past the limit from the text, before parsing (422 too_deep)', async () => {
    const deep = `{"subject_id":"s","source":"u","type":"n","payload":${'{"a":'.repeat(MAX_JSON_DEPTH + 5)}1${'}'.repeat(MAX_JSON_DEPTH + 5)}}`;
    const res = await request(t.http).post('/v1/episodes').set('X-API-Key', KEY).set('Content-Type', 'application/json').send(deep);
    expectEnvelope(res, 422, 'validation_error');
    expect(res.body.error.details[0].type).toBe('too_deep');
  });

  it('still accepts a large legitimate payload under both caps', async () => {
    const vector = Array.from({ length: 1536 }, (_, i) => i / 1536);
    const text = 'x'.repeat(1_500_000);
    await request(t.http).post('/v1/episodes').set('X-API-Key', KEY).send({ subject_id: 'big', source: 'u', type: 'note', payload: { vector, text } }).expect(201);
  });

  it('answers invalid UTF-8 in a JSON body with 400 invalid_encoding and stores nothing', async () => {
    const body = Buffer.concat([Buffer.from('{"subject_id": "'), Buffer.from([0xff, 0xfe]), Buffer.from('", "source": "u", "type": "note", "payload": {}}')]);
    // fetch sends the bytes as they are (supertest would serialise a Buffer as JSON).
    const res = await fetch(`http://127.0.0.1:${port}/v1/episodes`, { method: 'POST', headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_encoding');
    expect(Number((await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id <> 'big'`))[0].n)).toBe(0);
  });

  it('reports auth "key" on /readyz and serves one readiness answer for about a second', async () => {
    const first = await request(t.http).get('/readyz').expect(200);
    expect(first.body).toMatchObject({ status: 'ready', auth: 'key' });
    // Stuck: claimed over 30 minutes ago and its lease not renewed since.
    await t.ds.query(`INSERT INTO compile_jobs (subject_id, status, started_at, updated_at) VALUES ('s', 'running', now() - interval '31 minutes', now() - interval '31 minutes')`);
    try {
      expect((await request(t.http).get('/readyz').expect(200)).body.status).toBe('ready');
      await new Promise((r) => setTimeout(r, READINESS_CACHE_MS + 50));
      expect((await request(t.http).get('/readyz').expect(200)).body.status).toBe('degraded');
    } finally {
      await t.ds.query(`DELETE FROM compile_jobs`);
    }
  });
});

describe('open access (no API key)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reports auth "open" on /readyz', async () => {
    expect((await request(t.http).get('/readyz').expect(200)).body.auth).toBe('open');
  });
});
