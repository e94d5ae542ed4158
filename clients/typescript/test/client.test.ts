/**
 * The client against the real, built service on the embedded engine (PGlite): started once from
 * ../../dist (run `npm run build` at the repository root first), on a free port, with a fresh
 * data directory and an API key.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, MemoryServiceClient, MemoryServiceError, parseRetryAfter } from '../src/index.js';

const KEY = 'client-test-key';
const ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');
let service: ChildProcess;
let baseUrl: string;
let dataDir: string;

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

const client = () => new MemoryServiceClient({ baseUrl, apiKey: KEY, baseDelayMs: 10 });

describe('MemoryServiceClient against the service', () => {
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'memsvc-client-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    service = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js')], {
      env: { ...process.env, SERVICE_PORT: String(port), SERVICE_HOST: '127.0.0.1', SERVICE_DATA_DIR: dataDir, SERVICE_DATABASE_URL: '', SERVICE_API_KEY: KEY, SERVICE_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const deadline = Date.now() + 300_000;
    for (;;) {
      try {
        if ((await fetch(`${baseUrl}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('the service did not become ready in 300 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  after(async () => {
    service?.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('remembers, reads, corrects and forgets one memory', async () => {
    const c = client();
    const v1 = await c.remember({ subject_id: 'ts-1', kind: 'profile_fact', content: 'I am on the Pro plan.', idempotency_key: 'ts-1-plan' });
    assert.equal(v1.origin, 'api');
    assert.deepEqual(await c.remember({ subject_id: 'ts-1', kind: 'profile_fact', content: 'I am on the Pro plan.', idempotency_key: 'ts-1-plan' }), v1);
    const v2 = await c.correctMemory(v1.id, { content: 'I am on the Enterprise plan.' });
    assert.equal((await c.getMemory(v1.id)).status, 'superseded');
    assert.deepEqual(await c.forgetMemory(v2.id), { id: v2.id, subject_id: 'ts-1', status: 'tombstoned', memories_forgotten: 2 });
    const tomb = await c.getMemory(v2.id);
    assert.equal(tomb.status, 'tombstoned');
    assert.equal(tomb.content, '');
  });

  it('ingests, compiles and returns a context bundle', async () => {
    const c = client();
    await c.createEpisode({ subject_id: 'ts-2', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Juno Marsh.' }] } });
    const compiled = await c.compileMemories('ts-2');
    assert.ok(compiled.memories_created > 0);
    const bundle = await c.getContext({ subject_id: 'ts-2', task: 'Greet the customer', max_tokens: 300 });
    assert.match(bundle.assembled_context, /Juno Marsh/);
    const found = await c.searchMemories({ subject_id: 'ts-2', q: 'juno' });
    assert.ok(found.memories.length > 0);
  });

  it('lists, reads, verifies and replays a context receipt, and explains the same request', async () => {
    const c = client();
    await c.remember({ subject_id: 'ts-r', kind: 'profile_fact', content: 'My name is Ada Quill.' });
    const bundle = await c.getContext({ subject_id: 'ts-r', task: 'Greet the customer', max_tokens: 300, emit_receipt: true });
    const receiptId = bundle.receipt_id;
    assert.ok(receiptId);
    const listed = await c.listReceipts({ subject_id: 'ts-r', limit: 10 });
    assert.deepEqual(listed.receipts.map((r) => r.receipt_id), [receiptId]);
    assert.equal((await c.getReceipt(receiptId)).receipt_id, receiptId);
    // The test service has no signing key: the verdict says so rather than failing.
    assert.equal((await c.verifyReceipt(receiptId)).reason, 'no_signature');
    const replay = await c.replayReceipt(receiptId, { as_of: new Date().toISOString() });
    assert.notEqual(replay.replay_receipt_id, receiptId);
    const explained = await c.explainContext({ subject_id: 'ts-r', task: 'Greet the customer', max_tokens: 300 });
    assert.ok(explained.candidates.some((m) => m.included && m.text?.includes('Ada Quill')));
  });

  it('reads the operator surface: jobs, webhook stats and policy', async () => {
    const c = client();
    await c.compileMemoriesAsync('ts-2');
    const jobs = await c.listJobs({ subject_id: 'ts-2', limit: 5 });
    assert.ok(jobs.jobs.length >= 1);
    const stats = await c.getWebhookStats();
    assert.equal(stats.total, stats.pending + stats.delivered + stats.dead_letter);
    await assert.rejects(c.requeueJob('00000000-0000-4000-8000-000000000000'), (err: unknown) => err instanceof MemoryServiceError && err.status === 404);
    const saved = await c.putPolicy({ yaml: 'version: 1\nmode: log_only\nrules: []\n' });
    assert.equal(saved.mode, 'log_only');
    assert.equal((await c.getPolicy()).policy_bundle_hash, saved.policy_bundle_hash);
  });

  it('reads readiness without a key, and the migration report with one', async () => {
    const ready = await new MemoryServiceClient({ baseUrl }).getReadiness();
    assert.equal(ready.status, 'ready');
    assert.equal(ready.engine, 'pglite');
    const migrations = await client().getMigrationStatus();
    assert.equal(migrations.is_compatible, true);
    assert.equal(migrations.pending_count, 0);
  });

  it('throws typed errors carrying code, details and request id', async () => {
    const c = client();
    await assert.rejects(c.getMemory('00000000-0000-4000-8000-000000000000'), (err: unknown) => {
      assert.ok(err instanceof MemoryServiceError);
      assert.equal(err.status, 404);
      assert.equal(err.code, 'not_found');
      assert.equal(typeof err.requestId, 'string');
      return true;
    });
    await assert.rejects(c.remember({ subject_id: 'ts-3', kind: 'profile_fact', content: '' }), (err: unknown) => {
      assert.ok(err instanceof MemoryServiceError);
      assert.equal(err.code, 'validation_error');
      assert.deepEqual((err.details as { loc: string[] }[])[0].loc, ['body', 'content']);
      return true;
    });
    const wrongKey = new MemoryServiceClient({ baseUrl, apiKey: 'nope' });
    await assert.rejects(wrongKey.listSubjects(), (err: unknown) => err instanceof MemoryServiceError && err.code === 'invalid_api_key' && err.status === 403);
  });

  it('retries a 429 after the Retry-After the service sent, then succeeds', async () => {
    let calls = 0;
    const refusing: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down', details: null, request_id: 'r1' } }), { status: 429, headers: { 'retry-after': '1' } });
      return fetch(input, init);
    };
    const c = new MemoryServiceClient({ baseUrl, apiKey: KEY, fetch: refusing });
    const started = Date.now();
    const page = await c.listSubjects();
    assert.ok(Date.now() - started >= 1000, 'waited for Retry-After');
    assert.equal(calls, 2);
    assert.equal(typeof page.total, 'number');
  });

  it('does not retry a correction whose answer was lost, and gives up after maxRetries on reads', async () => {
    let calls = 0;
    const badGateway: typeof fetch = async () => {
      calls += 1;
      return new Response('bad gateway', { status: 502 });
    };
    const c = new MemoryServiceClient({ baseUrl, apiKey: KEY, fetch: badGateway, maxRetries: 2, baseDelayMs: 1 });
    await assert.rejects(c.correctMemory('00000000-0000-4000-8000-000000000000', { content: 'x' }), (err: unknown) => err instanceof MemoryServiceError && err.status === 502 && err.code === 'http_502');
    assert.equal(calls, 1);
    calls = 0;
    await assert.rejects(c.getMemory('00000000-0000-4000-8000-000000000000'));
    assert.equal(calls, 3);
  });

  it('stops at once when the caller aborts, even while waiting to retry', async () => {
    const unavailable: typeof fetch = async () => new Response('{}', { status: 503, headers: { 'retry-after': '30' } });
    const c = new MemoryServiceClient({ baseUrl, apiKey: KEY, fetch: unavailable });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    const started = Date.now();
    await assert.rejects(c.listSubjects({}, { signal: controller.signal }), /caller gave up/);
    assert.ok(Date.now() - started < 5000);
  });
});

describe('the package', () => {
  it('packs the built ESM entry, its types and the generated schema, with no runtime dependencies', () => {
    const dir = resolve(import.meta.dirname, '..', '..');
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8' })) as { files: { path: string }[] }[];
    assert.deepEqual(pack.files.map((f) => f.path).sort(), ['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts', 'package.json']);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    assert.equal(manifest.type, 'module');
    assert.equal(manifest.dependencies, undefined);
  });
});

describe('retry arithmetic', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(parseRetryAfter(null), null);
    assert.equal(parseRetryAfter('soon'), null);
  });

  it('draws full-jitter backoff within the doubled, capped step', () => {
    assert.equal(backoffMs(0, 100, 1000, () => 0.999), 99);
    assert.equal(backoffMs(3, 100, 1000, () => 0.5), 400);
    assert.equal(backoffMs(10, 100, 1000, () => 0.5), 500);
    assert.equal(backoffMs(2, 100, 1000, () => 0), 0);
  });
});
