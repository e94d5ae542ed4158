import { rawRequest, RawResponse } from './harness/http-raw';
import { baseEnv, prodNodeFlags, provisionDb, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { LONG } from './harness/settings';

/**
 * Near-limit bodies of every JSON shape against the built service started as `npm run
 * start:prod` starts it (separate process, V8 heap capped by start:prod's flags), to known
 * routes, an unknown route, /admin/import and /mcp, without a key, with a wrong one and with the
 * right one, one at a time and in concurrent bursts. Before authentication-first reading, one
 * such anonymous request ended the process with "Reached heap limit". Each answer must be a
 * 4xx in the envelope, a 2xx for a legitimate body, or a 503 with Retry-After when the
 * in-flight body budget sheds load; never a 5xx otherwise, and the process stays up.
 * RELIABILITY_LONG=1 runs more rounds with wider bursts.
 */
const KEY = 'hostile-bodies-key';
const LIMIT = 2 * 1024 * 1024;
const ROUNDS = LONG ? 5 : 1;
const BURST = LONG ? 16 : 6;

/** Fills `{"subject_id":"s",…,"payload":<value>}` up to just under the body limit with `unit`. */
function nearLimit(open: string, unit: string, close: string, sep = ','): string {
  const prefix = `{"subject_id":"hostile","source":"u","type":"note","payload":${open}`;
  const suffix = `${close}}`;
  const count = Math.floor((LIMIT - 64 - prefix.length - suffix.length) / (unit.length + sep.length));
  return prefix + Array(count).fill(unit).join(sep) + suffix;
}

const SHAPES: Record<string, () => string> = {
  'long array of zeros': () => nearLimit('{"a":[', '0', ']}'),
  'array of empty objects': () => nearLimit('[', '{}', ']'),
  'array of empty arrays': () => nearLimit('[', '[]', ']'),
  'many keys': () => {
    const prefix = '{"subject_id":"hostile","source":"u","type":"note","payload":{';
    const parts: string[] = [];
    let size = prefix.length + 2;
    for (let i = 0; size < LIMIT - 64; i++) {
      const p = `"k${i}":0`;
      parts.push(p);
      size += p.length + 1;
    }
    return `${prefix}${parts.join(',')}}}`;
  },
  'long string': () => `{"subject_id":"hostile","source":"u","type":"note","payload":{"text":"${'x'.repeat(LIMIT - 200)}"}}`,
  'deep objects': () => `{"subject_id":"hostile","source":"u","type":"note","payload":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`,
  'deep arrays': () => `{"payload":${'['.repeat(LIMIT / 2 - 100)}${']'.repeat(LIMIT / 2 - 100)}}`,
};

const TARGETS = ['/v1/episodes', '/v1/episodes/batch', '/no-such-route', '/admin/import', '/mcp'];
const AUTH: Record<string, Record<string, string>> = { none: {}, wrong: { 'X-API-Key': 'not-the-key' }, key: { 'X-API-Key': KEY } };

function acceptable(r: RawResponse, path: string): string | null {
  if (r.status >= 200 && r.status < 300) return null;
  // /mcp answers protocol errors as JSON-RPC (docs/mcp.md), auth errors in the envelope.
  if (path === '/mcp' && r.status >= 400 && r.status < 500 && (r.json as { jsonrpc?: string } | undefined)?.jsonrpc === '2.0') return null;
  const envelope = (r.json as { error?: { code?: string; request_id?: string } } | undefined)?.error;
  if (!envelope?.code || !envelope.request_id) return `status ${r.status} without the error envelope: ${r.text.slice(0, 200)}`;
  if (r.status >= 400 && r.status < 500) return null;
  if (r.status === 503 && r.headers['retry-after']) return null;
  return `status ${r.status} (${envelope.code})`;
}

describe('hostile bodies against the production-started service', () => {
  let db: ServiceDb;
  let svc: ServiceProcess;

  beforeAll(async () => {
    db = await provisionDb();
    svc = await startService(baseEnv({ ...db.env, SERVICE_API_KEY: KEY, SERVICE_WORKERS_ENABLED: 'false' }), { prodFlags: true, readyTimeoutMs: 180_000 });
  }, 240_000);

  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
  }, 60_000);

  it('runs under start:prod\'s heap cap', () => {
    expect(prodNodeFlags().join(' ')).toMatch(/--max-old-space-size=\d+/);
  });

  it('answers every shape on every route with and without a key, and stays alive', async () => {
    const bodies = Object.entries(SHAPES).map(([name, make]) => [name, Buffer.from(make(), 'utf8')] as const);
    for (const [, body] of bodies) expect(body.length).toBeLessThanOrEqual(LIMIT);
    const problems: string[] = [];
    const call = async (name: string, body: Buffer, path: string, auth: string) => {
      try {
        const r = await rawRequest(svc.base, { method: 'POST', path, headers: { 'Content-Type': 'application/json', ...AUTH[auth] }, body, timeoutMs: 60_000 });
        const p = acceptable(r, path);
        if (p) problems.push(`${name} → ${path} (${auth}): ${p}`);
        if (auth !== 'key' && r.status !== (auth === 'none' ? 401 : 403)) problems.push(`${name} → ${path} (${auth}): ${r.status} instead of the auth refusal`);
      } catch (err) {
        problems.push(`${name} → ${path} (${auth}): ${(err as Error).message}`);
      }
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, body] of bodies) {
        for (const path of TARGETS) for (const auth of Object.keys(AUTH)) await call(name, body, path, auth);
      }
      // Bursts: the same shape from many clients at once, authenticated (the costly case) and not.
      for (const [name, body] of bodies) {
        await Promise.all(Array.from({ length: BURST }, (_, i) => call(name, body, TARGETS[i % 2], i % 3 === 0 ? 'none' : 'key')));
      }
      expect(svc.child.exitCode).toBeNull();
    }
    expect(problems).toEqual([]);
    expect(svc.child.exitCode).toBeNull();
    expect(svc.child.signalCode).toBeNull();
    expect((await rawRequest(svc.base, { method: 'GET', path: '/healthz' })).status).toBe(200);
    expect(svc.lines.join('\n')).not.toMatch(/heap limit|out of memory/i);
  }, LONG ? 1_800_000 : 600_000);
});
