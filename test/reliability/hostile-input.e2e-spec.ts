import { AddressInfo, connect } from 'node:net';
import fc from 'fast-check';
import request from 'supertest';
import { operatorScope } from 'src/common/db/tenant-scope';
import { SnapshotsService } from 'src/modules/snapshots/snapshots.service';
import { SupportService } from 'src/modules/support/support.service';
import { createTestApp, TestApp } from '../app-factory';
import { HostileContext, HostileRequest, hostileRequest } from './harness/hostile';
import { envelopeProblem, rawRequest } from './harness/http-raw';
import { seed, sizes } from './harness/settings';
import { storedRows } from './stored-rows';

/**
 * Property: whatever arrives — wrong types, hostile strings, malformed or oversized bodies, odd
 * content types, path and query tricks, hostile headers — every route answers 2xx or a 4xx in
 * the error envelope with the request id, never a 5xx; and a sentinel subject in the same
 * tenant (episodes, compiled memories, a resolution, cached health and its history, a pending job) stays
 * byte-for-byte unchanged. RELIABILITY_CASES / RELIABILITY_SEED / RELIABILITY_LONG size it.
 */
const API_KEY = 'hostile-suite-key';
const TENANT = 't-sentinel';
const SENTINEL = 'sentinel/subject';

const sentinelDump = (t: TestApp): Promise<string[]> =>
  storedRows(t, ['episodes', 'memories', 'resolutions', 'compile_jobs', 'health_cache', 'health_history'], { tenant: TENANT, subject: SENTINEL });

describe('hostile input (property-based)', () => {
  let t: TestApp;
  let base: string;
  let ctx: HostileContext;
  let before: string[];
  const h = { 'X-API-Key': API_KEY, 'X-Tenant-ID': TENANT };

  beforeAll(async () => {
    t = await createTestApp({
      SERVICE_API_KEY: API_KEY,
      SERVICE_REQUIRE_TENANT: 'true',
      SERVICE_ENABLE_SNAPSHOTS: 'true',
      // Events are written (workers are off in tests, nothing is sent).
      SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      SERVICE_EMBEDDING_DIMENSIONS: '64',
    });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const conv = (text: string, session: string) => ({ subject_id: SENTINEL, source: 'user', type: 'conversation', session_id: session, payload: { messages: [{ role: 'user', content: text }] } });
    await request(t.http).post('/v1/episodes').set(h).send(conv('My name is Sentinel Prime and I prefer email.', 's-1')).expect(201);
    await request(t.http)
      .post('/v1/episodes/batch')
      .set(h)
      .send({ episodes: [conv('To reset the router, hold the button for 10 seconds.', 's-1'), conv('Production is down, urgent!', 's-2')] })
      .expect(201);
    const compiled = await request(t.http).post('/v1/memories/compile').set(h).send({ subject_id: SENTINEL }).expect(200);
    expect(compiled.body.memories_created).toBeGreaterThan(0);
    await request(t.http).post('/v1/resolutions').set(h).send({ subject_id: SENTINEL, session_id: 's-1', status: 'resolved', resolution_summary: 'fixed' }).expect(200);
    await request(t.http).get(`/v1/subjects/${encodeURIComponent(SENTINEL)}/health`).set(h).expect(200);
    await request(t.http).post('/v1/episodes').set(h).send(conv('one more, uncompiled', 's-2')).expect(201);
    const job = await request(t.http).post('/v1/memories/compile').set(h).send({ subject_id: SENTINEL, async: true }).expect(202);
    // Material for the generators: other subjects, a job, events, a snapshot.
    await request(t.http).post('/v1/episodes').set(h).send({ ...conv('snapshot me', 's-9'), subject_id: 'snap-src' }).expect(201);
    const snap = await t.app.get(SnapshotsService).create(operatorScope(TENANT), 'snap-src', 'fuzz-snap');
    const events: { id: string }[] = await t.ds.query(`SELECT id FROM webhook_events ORDER BY created_at LIMIT 3`);
    ctx = {
      apiKey: API_KEY,
      tenantHeader: 'X-Tenant-ID',
      tenant: TENANT,
      subjects: ['snap-src', 'fuzz-a', 'live_fuzz'],
      jobIds: [job.body.job_id],
      eventIds: events.map((e) => e.id),
      snapshotIds: [snap.id],
      snapshotNames: ['fuzz-snap'],
      protectedSubject: SENTINEL,
    };
    // Ingestion recomputes health shortly after it answers; let that finish before the baseline.
    await t.app.get(SupportService).drainHealthRefresh();
    before = await sentinelDump(t);
    expect(before.length).toBeGreaterThan(5);
  });
  afterAll(() => t?.close());

  it('answers 2xx or a 4xx envelope with the request id to every generated request, and the sentinel stays unchanged', async () => {
    const s = seed();
    const numRuns = sizes.hostileCases();
    const statuses = new Map<number, number>();
    let unsendable = 0;
    process.stdout.write(`hostile-input: seed=${s} runs=${numRuns}\n`);
    // Every failure is collected (no shrinking): one run reports every kind of problem it met.
    const failures = new Map<string, string>();
    const fail = (req: HostileRequest, why: string) => {
      const kind = `${req.label.split(';')[0]} ${why.slice(0, 80)}`;
      if (!failures.has(kind)) failures.set(kind, `${why} — ${req.label.slice(0, 300)} — ${req.method.toUpperCase()} ${req.url.slice(0, 300)}`);
    };
    await fc.assert(
      fc.asyncProperty(hostileRequest(ctx), async (req) => {
        const body = req.body.kind === 'json' ? Buffer.from(JSON.stringify(req.body.value) ?? 'null', 'utf8') : req.body.kind === 'raw' ? req.body.bytes : null;
        const headers = { ...req.headers };
        if (req.body.kind === 'json') headers['Content-Type'] = 'application/json';
        if (req.body.kind === 'raw' && req.body.contentType !== null) headers['Content-Type'] = req.body.contentType;
        let res;
        try {
          res = await rawRequest(base, { method: req.method, path: req.url, headers, body, timeoutMs: 30_000 });
        } catch (err) {
          const code = (err as { code?: string }).code ?? '';
          // Node refuses to send some header values at all: nothing reached the service.
          if (/^ERR_(INVALID|UNESCAPED)/.test(code)) {
            unsendable++;
            return;
          }
          // The service may close the socket after a 413/415 before the body is written.
          if (code === 'ECONNRESET' || code === 'EPIPE') return;
          fail(req, `client error ${code} ${(err as Error).message}`);
          return;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) return fail(req, `${res.status}: ${res.text.slice(0, 300)}`);
        const problem = envelopeProblem(res);
        if (problem) return fail(req, `${problem} (${res.status}): ${res.text.slice(0, 200)}`);
        if (res.status < 300 && !String(res.headers['content-type'] ?? '').includes('json')) fail(req, `2xx without a JSON body`);
      }),
      { seed: s, numRuns },
    );
    if (failures.size > 0) throw new Error(`${failures.size} kind(s) of failure (seed ${s}):\n${[...failures.values()].join('\n')}`);
    process.stdout.write(`hostile-input: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}, unsendable ${unsendable}\n`);
    expect(await sentinelDump(t)).toEqual(before);
  });

  it('answers a URL over the header size limit with a 431 envelope and a request id (Node parser errors)', async () => {
    const res = await rawRequest(base, { method: 'get', path: `/v1/timeline?subject_id=${'d'.repeat(20_000)}`, headers: h });
    expect(res.status).toBe(431);
    expect(envelopeProblem(res)).toBeNull();
    expect((res.json as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('answers a malformed request line with a 400 envelope and a request id', async () => {
    const port = Number(new URL(base).port);
    const text = await new Promise<string>((resolve, reject) => {
      const sock = connect(port, '127.0.0.1', () => sock.write('NOT A REQUEST\r\n\r\n'));
      let out = '';
      sock.on('data', (c) => (out += c.toString('utf8')));
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
      sock.setTimeout(5000, () => sock.destroy(new Error('no answer')));
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const rid = /X-Request-ID: (\S+)/.exec(text)?.[1];
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({ code: 'validation_error', request_id: rid });
  });

  it('keeps the sentinel through direct traversal attempts on every subject route', async () => {
    const p = encodeURIComponent(SENTINEL);
    for (const trick of [`${p}%2F..`, `..%2F${p}`, `${p}%00`, 'sentinel%2F..%2Fsentinel%2Fsubject', 'sentinel/subject', `${p}%2F`, `${p}%20`]) {
      for (const [method, path] of [
        ['delete', `/v1/subjects/${trick}`],
        ['get', `/v1/subjects/${trick}/health`],
        ['get', `/admin/export/${trick}`],
      ] as const) {
        const res = await rawRequest(base, { method, path, headers: h });
        expect(res.status).toBeLessThan(500);
        expect(envelopeProblem(res)).toBeNull();
      }
    }
    // `sentinel/subject` unencoded is another route shape (404) and never the sentinel itself.
    expect(await sentinelDump(t)).toEqual(before);
  });
});
