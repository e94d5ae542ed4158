import { connect } from 'node:net';
import { keysMatch } from 'src/common/auth/principal';
import { rawRequest } from './harness/http-raw';
import { baseEnv, provisionDb, runEngine, ServiceDb, ServiceProcess, startService } from './harness/service-process';

const crypto = require('node:crypto') as typeof import('node:crypto');

/**
 * Security checks: the API key comparison is constant-time by construction (timingSafeEqual on
 * two SHA-256 digests, so equal lengths whatever the inputs); on the built service, keys and
 * payloads never reach the log lines (captured stdout/stderr, debug level); hostile request ids
 * (ANSI escapes, HTML, header-injection text, oversize) are replaced before they are echoed in
 * headers or bodies, or logged.
 */
describe('API key comparison', () => {
  afterEach(() => jest.restoreAllMocks());

  it('compares SHA-256 digests of equal length with timingSafeEqual, whatever the key lengths', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    for (const [given, expected] of [
      ['short', 'a-much-longer-configured-key-value'],
      ['a-much-longer-configured-key-value', 'a-much-longer-configured-key-value'],
      ['', 'k'],
      ['ключ-🔑', 'key'],
    ]) {
      keysMatch(given, expected);
    }
    expect(spy).toHaveBeenCalledTimes(4);
    for (const [a, b] of spy.mock.calls as [Buffer, Buffer][]) {
      expect(a).toHaveLength(32);
      expect(b).toHaveLength(32);
    }
    expect(keysMatch('a-much-longer-configured-key-value', 'a-much-longer-configured-key-value')).toBe(true);
    expect(keysMatch('a-much-longer-configured-key-valuf', 'a-much-longer-configured-key-value')).toBe(false);
  });
});

describe('logs and request ids of the built service', () => {
  const KEY = 'sec-KEY-9f8e7d6c5b4a';
  const WRONG = 'wrong-KEY-0a1b2c3d';
  const CANARY = 'CANARY-payload-5e6f7a';
  let db: ServiceDb;
  let svc: ServiceProcess;
  beforeAll(async () => {
    db = await provisionDb(runEngine());
    svc = await startService(baseEnv({ ...db.env, SERVICE_API_KEY: KEY, SERVICE_LOG_LEVEL: 'debug', SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SERVICE_WEBHOOK_TIMEOUT: '0.5' }));
  }, 120_000);
  afterAll(async () => {
    await svc?.stop(10_000);
    await db?.drop();
  });

  const json = { 'Content-Type': 'application/json' };
  const episode = { subject_id: 'sec-subject', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: `My name is ${CANARY}` }] }, metadata: { note: CANARY } };

  /** Raw bytes on a socket: Node's client refuses control characters in header values. */
  function rawHeaderRequest(requestId: string): Promise<{ head: string; body: { error: { request_id: string } } }> {
    return new Promise((resolve, reject) => {
      const sock = connect(Number(new URL(svc.base).port), '127.0.0.1', () => {
        sock.write(Buffer.from(`GET /v1/timeline?subject_id=x HTTP/1.1\r\nHost: x\r\nX-API-Key: ${WRONG}\r\nX-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n`, 'latin1'));
      });
      let out = '';
      sock.on('data', (c) => (out += c.toString('utf8')));
      sock.on('end', () => {
        const i = out.indexOf('\r\n\r\n');
        const rest = out.slice(i + 4);
        // Chunked or not, the JSON object is the part between the outer braces.
        resolve({ head: out.slice(0, i), body: JSON.parse(rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1)) });
      });
      sock.on('error', reject);
      sock.setTimeout(5000, () => sock.destroy(new Error('no answer')));
    });
  }

  it('replaces request ids that cannot be echoed, and echoes printable ones byte for byte', async () => {
    for (const hostile of ['abc\u001b[31mred\u001b[0m', 'é-latin1', 'x'.repeat(4001)]) {
      const { head, body } = await rawHeaderRequest(hostile);
      const echoed = /\r\nX-Request-ID: ([^\r\n]*)/i.exec(head)?.[1];
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.error.request_id).toBe(echoed);
    }
    for (const printable of ['<script>alert(1)</script>', 'a%0d%0aSet-Cookie: x=1', 'id with spaces', "'; DROP TABLE episodes; --", 'x'.repeat(4000)]) {
      const { head, body } = await rawHeaderRequest(printable);
      expect(/\r\nX-Request-ID: ([^\r\n]*)/i.exec(head)?.[1]).toBe(printable);
      expect(body.error.request_id).toBe(printable);
      // Echoed as one header value: no header line of its own appears.
      expect(head).not.toMatch(/\r\nSet-Cookie/i);
    }
    // A sane client id is kept.
    const ok = await rawRequest(svc.base, { method: 'GET', path: '/healthz', headers: { 'X-Request-ID': 'client-id_1.2:3' } });
    expect(ok.headers['x-request-id']).toBe('client-id_1.2:3');
  });

  it('never writes the API key (header or query), a wrong key, or payloads to the log', async () => {
    expect((await rawRequest(svc.base, { method: 'POST', path: '/v1/episodes', headers: { ...json, 'X-API-Key': KEY }, body: JSON.stringify(episode) })).status).toBe(201);
    expect((await rawRequest(svc.base, { method: 'POST', path: `/v1/episodes?api_key=${KEY}`, headers: json, body: JSON.stringify(episode) })).status).toBe(201);
    expect((await rawRequest(svc.base, { method: 'POST', path: '/v1/episodes', headers: { ...json, 'X-API-Key': WRONG }, body: JSON.stringify(episode) })).status).toBe(403);
    expect((await rawRequest(svc.base, { method: 'GET', path: `/v1/timeline?subject_id=sec-subject&api_key=${WRONG}` })).status).toBe(403);
    // Validation failures, a compile (summaries of the canary text) and a webhook that fails.
    expect((await rawRequest(svc.base, { method: 'POST', path: '/v1/episodes', headers: { ...json, 'X-API-Key': KEY }, body: JSON.stringify({ ...episode, source: { x: CANARY } }) })).status).toBe(422);
    expect((await rawRequest(svc.base, { method: 'POST', path: '/v1/memories/compile', headers: { ...json, 'X-API-Key': KEY }, body: JSON.stringify({ subject_id: 'sec-subject' }) })).status).toBe(200);
    expect((await rawRequest(svc.base, { method: 'POST', path: '/admin/import', headers: { ...json, 'X-API-Key': KEY }, body: JSON.stringify({ document: { format_version: '1.0', episodes: [{ payload: CANARY }], memories: [], checksum: 'x' } }) })).status).toBe(400);
    await rawRequest(svc.base, { method: 'GET', path: `/v1/memories/search?subject_id=sec-subject&q=${CANARY}`, headers: { 'X-API-Key': KEY } });
    await new Promise((r) => setTimeout(r, 1500));
    const text = svc.lines.join('\n');
    expect(svc.lines.length).toBeGreaterThan(5);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(WRONG);
    // The search query string carries it in the URL of an access line: only payloads are asserted on.
    const withoutSearchUrls = svc.lines.filter((l) => !l.includes('/v1/memories/search?')).join('\n');
    expect(withoutSearchUrls).not.toContain(CANARY);
    // Unprintable request ids were replaced, never logged; printable ones (`<script>` too) are
    // logged as sent, inside a JSON string (compat.md: request ids appear unchanged in logs).
    expect(text).not.toMatch(/\\u001b/);
    expect(svc.lines.some((l) => JSON.parse(l).request_id === '<script>alert(1)</script>')).toBe(true);
  });
});
