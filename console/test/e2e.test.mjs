/**
 * The console in a real browser: the built service (`npm run build`) on the embedded engine, a
 * fresh data directory, an API key and a receipt signing key; Debian's Chromium driven by
 * playwright-core. Screenshots of the main pages go to docs/console/ (linked from docs/console.md).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { chromium } from 'playwright-core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = join(ROOT, 'docs', 'console');
const KEY = 'console-e2e-key-0123456789';
const SUBJECT = 'juno-marsh';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitHealthy(base, child, ms = 90_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('service did not become healthy');
}

describe('console in Chromium (embedded engine)', () => {
  let service;
  let browser;
  let page;
  let base;
  let dataDir;
  let log = '';
  const api = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  let env;
  // The webhook receiver: records each delivery's event id; refuses (500) the events of one
  // subject, which with one attempt allowed become dead letters at once.
  let receiver;
  const deliveries = [];
  const DEAD_SUBJECT = 'webhook-refused';
  const startService = async () => {
    service = spawn(process.execPath, ['dist/src/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stdout.on('data', (c) => (log += c));
    service.stderr.on('data', (c) => (log += c));
    await waitHealthy(base, service);
  };
  const stopService = async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((r) => service.once('exit', r));
      service.kill('SIGTERM');
      await exited;
    }
  };

  before(async () => {
    receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        deliveries.push({ id: req.headers['x-webhook-event-id'], body });
        res.writeHead(body.includes(DEAD_SUBJECT) ? 500 : 204).end();
      });
    });
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'console-e2e-'));
    env = { ...process.env, SERVICE_PORT: String(port), SERVICE_HOST: '127.0.0.1', SERVICE_DATA_DIR: dataDir, SERVICE_API_KEY: KEY, SERVICE_RECEIPT_SIGNING_KEYS: 'console-e2e=0123456789abcdef0123', SERVICE_LOG_LEVEL: 'warn', SERVICE_WORKERS: '1', SERVICE_WEBHOOK_URL: `http://127.0.0.1:${receiver.address().port}/hook`, SERVICE_WEBHOOK_MAX_ATTEMPTS: '1' };
    delete env.SERVICE_DATABASE_URL;
    await startService();
    await api('POST', '/v1/episodes/batch', {
      episodes: [
        { subject_id: SUBJECT, source: 'chat', type: 'conversation', session_id: 'ticket-1', payload: { messages: [{ role: 'user', content: 'My name is Juno Marsh and I prefer email.' }] } },
        { subject_id: SUBJECT, source: 'chat', type: 'conversation', session_id: 'ticket-2', payload: { messages: [{ role: 'user', content: 'I am on the Team plan and the renewal is due in May.' }] } },
      ],
    });
    await api('POST', '/v1/memories/compile', { subject_id: SUBJECT });
    await api('POST', '/v1/memories', { subject_id: SUBJECT, kind: 'profile_fact', content: 'My phone number is 555-0100.' });
    await api('POST', '/v1/episodes', { subject_id: 'other-subject', source: 'chat', type: 'note', payload: { text: 'A second subject.' } });
    await api('POST', '/v1/memories/compile', { subject_id: 'other-subject', async: true });
    // A failed compile job for the operator page's Requeue: the heuristic compiler does not fail,
    // so one is written while the service is stopped (the embedded engine is one process's files),
    // as a worker leaves a job whose compile threw.
    await stopService();
    const db = await PGlite.create({ dataDir: join(dataDir, 'pglite'), extensions: { vector } });
    await db.query(
      `INSERT INTO compile_jobs (subject_id, status, error, attempts, started_at, completed_at)
       VALUES ('failing-subject', 'failed', 'Compile failed: the model server was unreachable', 1, now(), now())`,
    );
    await db.close();
    await startService();
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  });

  after(async () => {
    await browser?.close();
    await stopService();
    receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the console without a key and refuses the API without one', async () => {
    const pageRes = await fetch(`${base}/console/`);
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal((await fetch(`${base}/v1/subjects`)).status, 401);
  });

  it('shows the error envelope with its request id for a wrong key', async () => {
    await page.goto(`${base}/console/`);
    await page.getByLabel('API key').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /invalid_api_key/);
    assert.match(await page.getByTestId('request-id').innerText(), /\S+/);
  });

  it('signs in with the key (kept in session storage, never in the URL) and lists subjects', async () => {
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: SUBJECT }).waitFor();
    assert.ok(!page.url().includes(KEY));
    assert.match(await page.evaluate(() => sessionStorage.getItem('memory-console.session') ?? ''), new RegExp(KEY));
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    await page.screenshot({ path: join(SHOTS, 'subjects.png') });
  });

  it('opens a subject: episodes and memories interleaved, a memory with its source episode', async () => {
    await page.getByRole('link', { name: SUBJECT }).click();
    const rows = page.locator('.trow');
    await page.locator('.trow.episode').first().waitFor();
    assert.ok((await rows.count()) >= 4);
    await page.locator('.trow.memory', { hasText: 'My name is Juno Marsh' }).first().click();
    const detail = page.getByRole('complementary', { name: 'Memory detail' });
    await detail.waitFor();
    assert.match(await detail.innerText(), /source episodes/);
    assert.match(await detail.innerText(), /user: My name is Juno Marsh/);
    await page.getByTestId('health-score').waitFor();
    await page.getByRole('button', { name: 'Prepare handoff' }).click();
    await page.getByTestId('handoff').waitFor();
    await page.screenshot({ path: join(SHOTS, 'subject.png') });
  });

  it('draws the health trend after two health changes', async () => {
    const path = `/v1/subjects/${SUBJECT}/health/history`;
    const before = (await api('GET', path)).points;
    assert.deepEqual(before.map((p) => p.score), [70]);
    // Resolving ticket-1 lifts the score (one open session fewer, a recent resolution); opening it
    // again brings it back: two changes, three points, each recomputed in its own request.
    await api('POST', '/v1/resolutions', { subject_id: SUBJECT, session_id: 'ticket-1', status: 'resolved' });
    await api('POST', '/v1/resolutions', { subject_id: SUBJECT, session_id: 'ticket-1', status: 'open' });
    await page.reload();
    const trend = page.getByTestId('health-trend');
    await trend.waitFor();
    assert.equal(await trend.locator('circle.point').count(), 3);
    assert.equal(await trend.locator('circle.point.state-healthy').count(), 3);
    assert.match(await page.getByTestId('health-trend-summary').innerText(), /^2 change\(s\) from 70 \(healthy\) on .* to 70 \(healthy\) on .* UTC; lowest 70\.$/);
    assert.equal(await trend.getByRole('img', { name: 'Health score over time' }).count(), 1);
    await page.locator('.trow.memory').first().waitFor();
    await page.getByRole('region', { name: 'Support' }).screenshot({ path: join(SHOTS, 'health-trend.png') });
  });

  it('forgets a memory after confirmation and shows it tombstoned', async () => {
    await page.locator('.trow.memory', { hasText: '555-0100' }).click();
    await page.getByRole('button', { name: 'Forget…' }).click();
    await page.getByRole('button', { name: 'Forget memory' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="memory-status"]')?.textContent === 'tombstoned');
    assert.equal(await page.locator('.trow.memory.selected').getAttribute('data-status'), 'tombstoned');
    assert.ok(!(await page.locator('.trow.memory', { hasText: '555-0100' }).count()));
  });

  it('remembers a new memory from the subject page; it replaces the one it restates', async () => {
    await page.getByRole('button', { name: 'Remember…' }).click();
    const form = page.getByRole('form', { name: 'Remember a memory' });
    await form.getByLabel('Kind').selectOption('profile_fact');
    await form.getByLabel('Content').fill('I am on the Enterprise plan now.');
    await form.getByRole('button', { name: 'Remember' }).click();
    const detail = page.getByRole('complementary', { name: 'Memory detail' });
    await detail.getByText('I am on the Enterprise plan now.').waitFor();
    assert.equal(await page.getByTestId('memory-status').innerText(), 'active');
    const text = await detail.innerText();
    assert.match(text, /profile_fact · api/);
    assert.match(text, /none \(written through the API\)/);
    assert.doesNotMatch(text, /replaced\s+none\s+replaced by/, text);
    assert.equal(await form.count(), 0);
    // The plan fact it restates is shown superseded, without a reload.
    const replaced = (await detail.locator('dt:text-is("replaced") + dd button').first().innerText()).trim();
    const old = page.locator(`.trow.memory[data-id^="${replaced}"]`);
    assert.equal(await old.getAttribute('data-status'), 'superseded');
    assert.match(await old.innerText(), /profile_fact[\s\S]*Team plan/);
    await page.screenshot({ path: join(SHOTS, 'remember.png') });
    // A compile that restates it supersedes it in turn: linked only by the record's superseded_by.
    await api('POST', '/v1/episodes', { subject_id: SUBJECT, source: 'chat', type: 'conversation', session_id: 'ticket-2', payload: { messages: [{ role: 'user', content: 'I am on the Scale plan now.' }] } });
    await api('POST', '/v1/memories/compile', { subject_id: SUBJECT });
    await page.reload();
    await page.locator('.trow.memory', { hasText: 'Enterprise plan now.' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="memory-status"]')?.textContent === 'superseded');
    const successor = (await detail.locator('dt:text-is("replaced by") + dd button').first().innerText()).trim();
    const compiled = page.locator(`.trow.memory[data-id^="${successor}"]`);
    assert.equal(await compiled.getAttribute('data-status'), 'active');
    assert.match(await compiled.innerText(), /profile_fact[\s\S]*Scale plan/);
  });

  it('inspects a context bundle and saves it as a receipt', async () => {
    await page.getByRole('link', { name: 'Inspect a context bundle' }).click();
    await page.getByLabel('Task').fill('How should we contact the customer about the renewal?');
    await page.getByLabel('Save as receipt').check();
    await page.getByRole('button', { name: 'Inspect' }).click();
    const bundle = page.getByTestId('bundle');
    await bundle.waitFor();
    const text = await bundle.innerText();
    assert.match(text, /## Task/);
    assert.match(text, /prefer email/);
    assert.doesNotMatch(text, /555-0100/);
    const table = page.getByRole('region', { name: 'Candidates' });
    assert.match(await table.innerText(), /\d+ included, \d+ left out/);
    const included = page.locator('.scores tr[data-reason="included"]');
    assert.ok((await included.count()) >= 1);
    assert.match(await page.locator('.scores tr', { hasText: 'I prefer email' }).first().innerText(), /included/);
    assert.match(await page.getByRole('region', { name: 'Token cost' }).innerText(), /## Task/);
    await page.screenshot({ path: join(SHOTS, 'context.png'), fullPage: true });
  });

  it('opens the saved receipt and verifies its signature', async () => {
    await page.getByTestId('receipt-link').click();
    await page.getByRole('button', { name: 'Verify signature' }).click();
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor();
    assert.match(await verdict.innerText(), /^valid · ok · key console-e2e/);
    await page.getByRole('button', { name: 'Replay as of the original instant' }).click();
    await page.getByTestId('replay').waitFor();
    // As of the original instant the bundle is reproduced: nothing added, removed or changed.
    assert.equal(await page.getByTestId('replay-hash').innerText(), 'context hash unchanged');
    await page.waitForFunction(() => /^0 added, 0 removed, 0 changed, [1-9]\d* in both$/.test(document.querySelector('[data-testid="replay-summary"]')?.textContent ?? ''));
    await page.screenshot({ path: join(SHOTS, 'receipt.png') });
    // With today's data, after a new memory the task is about, the diff lists it as added.
    await api('POST', '/v1/memories', { subject_id: SUBJECT, kind: 'profile_fact', content: 'For the renewal, contact me by phone in the morning.' });
    await page.getByRole('button', { name: 'Replay with today’s data' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="replay-hash"]')?.textContent === 'context hash changed');
    await page.waitForFunction(() => !(document.querySelector('[data-testid="replay-summary"]')?.textContent ?? '…').includes('…'));
    const added = page.getByTestId('replay-added').locator('li');
    assert.ok((await added.count()) >= 1, await page.getByTestId('replay').innerText());
    assert.match(await added.first().innerText(), /^memory \w+ [0-9a-f]{8} rank \d+$/);
    assert.match(await page.getByTestId('replay-summary').innerText(), /^[1-9]\d* added, \d+ removed, \d+ changed, \d+ in both$/);
    assert.doesNotMatch(await page.getByTestId('replay').innerText(), /"diff"/);
    await page.screenshot({ path: join(SHOTS, 'replay.png'), fullPage: true });
  });

  it('shows the operator pages: compile jobs, webhook counts, and a policy edit refused at its line then saved', async () => {
    // A dead letter: an episode of the subject the receiver refuses.
    await api('POST', '/v1/episodes', { subject_id: DEAD_SUBJECT, source: 'chat', type: 'note', payload: { text: 'The receiver refuses this one.' } });
    let deadId;
    for (let i = 0; i < 80 && !deadId; i++) {
      const refused = deliveries.find((d) => d.body.includes(DEAD_SUBJECT));
      if (refused && (await api('GET', `/admin/webhooks/${refused.id}`)).status === 'dead_letter') deadId = refused.id;
      else await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(deadId, 'the refused event became a dead letter');
    const deliveredId = deliveries.find((d) => !d.body.includes(DEAD_SUBJECT)).id;
    await page.getByRole('link', { name: 'Operator' }).click();
    const jobs = page.getByRole('region', { name: 'Compile jobs' });
    await jobs.locator('tr', { hasText: 'other-subject' }).waitFor();
    // Failed jobs with their error, and Requeue puts one back in the queue.
    await jobs.getByLabel('Status').selectOption('failed');
    // The filtered list replaces the unfiltered one: only failed rows left.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('section[aria-label="Compile jobs"] tbody tr')];
      return rows.length > 0 && rows.every((r) => r.getAttribute('data-status') === 'failed');
    });
    const failed = jobs.locator('tr', { hasText: 'failing-subject' });
    assert.match(await failed.innerText(), /model server was unreachable/);
    const jobId = await failed.getAttribute('data-job-id');
    const answered = page.waitForResponse((r) => r.url().endsWith(`/admin/jobs/${jobId}/requeue`));
    await failed.getByRole('button', { name: `Requeue job ${jobId}` }).click();
    assert.equal((await answered).status(), 200);
    await jobs.getByTestId('job-requeued').waitFor();
    assert.match(await jobs.getByTestId('job-requeued').innerText(), /is pending again/);
    assert.equal(await jobs.locator(`tr[data-job-id="${jobId}"]`).getAttribute('data-status'), 'pending');
    assert.equal(await jobs.getByRole('button', { name: `Requeue job ${jobId}` }).count(), 0);
    // The worker takes it (the subject has nothing new to compile, so it completes with none).
    for (let i = 0; i < 60; i++) {
      const { jobs: listed } = await api('GET', `/admin/jobs?status=completed&subject_id=failing-subject`);
      if (listed.some((j) => j.job_id === jobId)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await jobs.getByLabel('Status').selectOption('completed');
    await jobs.locator(`tr[data-job-id="${jobId}"]`).waitFor();
    assert.equal(await jobs.locator(`tr[data-job-id="${jobId}"]`).getAttribute('data-status'), 'completed');
    await jobs.getByLabel('Status').selectOption('');
    await page.getByTestId('dead-letters').waitFor();
    // Open one event by id: the dead letter with the receiver's answer, then a delivered one.
    const hooks = page.getByRole('region', { name: 'Webhooks' });
    assert.equal(await page.getByTestId('dead-letters').innerText(), '1');
    await hooks.getByLabel('Event id').fill(deadId);
    await hooks.getByRole('button', { name: 'Open event', exact: true }).click();
    await hooks.getByTestId('webhook-event').waitFor();
    assert.equal(await hooks.getByTestId('webhook-event-status').innerText(), 'dead letter');
    assert.equal(await hooks.getByTestId('webhook-last-answer').innerText(), 'HTTP 500');
    assert.match(await hooks.getByTestId('webhook-event').innerText(), new RegExp(`episode\\.created[\\s\\S]*${DEAD_SUBJECT}`));
    await page.screenshot({ path: join(SHOTS, 'webhook-event.png'), fullPage: true });
    await hooks.getByLabel('Event id').fill(deliveredId);
    await hooks.getByRole('button', { name: 'Open event', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="webhook-event-status"]')?.textContent === 'delivered');
    assert.equal(await hooks.getByTestId('webhook-last-answer').innerText(), 'HTTP 204');
    await hooks.getByLabel('Event id').fill('00000000-0000-4000-8000-000000000000');
    await hooks.getByRole('button', { name: 'Open event', exact: true }).click();
    await hooks.getByRole('alert').waitFor();
    assert.match(await hooks.getByRole('alert').innerText(), /404 not_found/);
    // The events list starts on dead letters: the refused event is listed, nothing else.
    const listed = hooks.getByRole('region', { name: 'Webhook events' });
    await listed.locator(`tr[data-event-id="${deadId}"]`).waitFor();
    assert.deepEqual(await listed.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))), ['dead_letter']);
    assert.match(await listed.locator(`tr[data-event-id="${deadId}"]`).innerText(), /episode\.created[\s\S]*HTTP 500/);
    // Every status, newest first, a page at a time: More adds the next page below until none is
    // left. Enough events for more than one page of 20 first.
    for (let i = 0; i < 12; i++) await api('POST', '/v1/episodes', { subject_id: 'webhook-paging', source: 'chat', type: 'note', payload: { text: `Event ${i}.` } });
    await listed.getByLabel('Status').selectOption('');
    await page.waitForFunction(() => document.querySelectorAll('section[aria-label="Webhook events"] tbody tr').length > 1);
    let more = 0;
    for (; more < 20 && (await listed.getByRole('button', { name: 'More' }).count()) > 0; more++) {
      const shown = await listed.locator('tbody tr').count();
      await listed.getByRole('button', { name: 'More' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('section[aria-label="Webhook events"] tbody tr').length > n, shown);
    }
    const ids = await listed.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id')));
    assert.equal(new Set(ids).size, ids.length, 'each event listed once');
    // In the service's order (events made since the list was read aside), and all of them.
    const { events: served } = await api('GET', '/admin/webhooks?limit=200');
    assert.deepEqual(served.map((e) => e.id).filter((id) => ids.includes(id)), ids);
    assert.ok(ids.includes(deliveredId) && ids.includes(deadId));
    assert.ok(more >= 1, `${ids.length} events took ${more + 1} pages`);
    // A row opens the detail view; a dead letter's Requeue… asks first, then sends that one event.
    await listed.getByLabel('Status').selectOption('dead_letter');
    await listed.getByRole('button', { name: `Open event ${deadId}` }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="webhook-event-status"]')?.textContent === 'dead letter');
    assert.equal(await listed.locator(`tr[data-event-id="${deadId}"]`).getAttribute('aria-current'), 'true');
    await page.screenshot({ path: join(SHOTS, 'webhook-events.png'), fullPage: true });
    const beforeOne = deliveries.filter((d) => d.id === deadId).length;
    await listed.getByRole('button', { name: `Requeue event ${deadId}` }).click();
    const asked = hooks.getByRole('alertdialog', { name: 'Confirm requeue' });
    assert.match(await asked.innerText(), new RegExp(`Put dead letter ${deadId.slice(0, 8)}`));
    const sent = page.waitForRequest((r) => r.url().endsWith('/admin/webhooks/dead-letters/requeue'));
    await asked.getByRole('button', { name: 'Requeue', exact: true }).click();
    assert.deepEqual((await sent).postDataJSON(), { event_ids: [deadId] });
    await hooks.getByText('Requeued: {"requeued":1}').waitFor();
    for (let i = 0; i < 80 && deliveries.filter((d) => d.id === deadId).length === beforeOne; i++) await new Promise((r) => setTimeout(r, 250));
    assert.equal(deliveries.filter((d) => d.id === deadId).length, beforeOne + 1);
    // Refused again with one attempt allowed: dead again, for the requeue of every dead letter below.
    for (let i = 0; i < 80 && (await api('GET', `/admin/webhooks/${deadId}`)).status !== 'dead_letter'; i++) await new Promise((r) => setTimeout(r, 250));
    await hooks.getByRole('button', { name: 'Refresh' }).click();
    await listed.locator(`tr[data-event-id="${deadId}"]`).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="dead-letters"]')?.textContent === '1');
    // The dead letter requeued after a confirmation: delivered again (refused again, so dead again).
    const before = deliveries.filter((d) => d.id === deadId).length;
    await hooks.getByRole('button', { name: 'Requeue dead letters…' }).click();
    await hooks.getByRole('button', { name: 'Requeue', exact: true }).click();
    await hooks.getByText('Requeued: {"requeued":1}').waitFor();
    for (let i = 0; i < 80 && deliveries.filter((d) => d.id === deadId).length === before; i++) await new Promise((r) => setTimeout(r, 250));
    assert.equal(deliveries.filter((d) => d.id === deadId).length, before + 1);
    const policy = page.getByRole('region', { name: 'Policy bundle' });
    await policy.getByLabel('YAML').fill('version: 1\nmode: enforce\nrules:\n  - id: r1\n    deny_label: [health]\n');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    const refusal = policy.getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /422 invalid_policy/);
    await policy.getByLabel('YAML').fill('version: 1\nmode: log_only\nrules:\n  - id: r1\n    deny_labels: [health]\n');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await policy.getByTestId('policy-saved').waitFor();
    await page.screenshot({ path: join(SHOTS, 'operator.png'), fullPage: true });
  });

  it('shows the status page: readiness and the migrations at head', async () => {
    await page.getByRole('link', { name: 'Status' }).click();
    await page.getByTestId('readiness').waitFor();
    assert.equal(await page.getByTestId('readiness-status').innerText(), 'ready');
    assert.match(await page.getByTestId('readiness').innerText(), /database\s+ok[\s\S]*engine\s+pglite/);
    const { current_revision: head } = await api('GET', '/ops/migrations');
    await page.getByTestId('migrations').waitFor();
    assert.equal(await page.getByTestId('current-revision').innerText(), head);
    assert.match(await page.getByTestId('migrations').innerText(), /up to date/);
    await page.screenshot({ path: join(SHOTS, 'status.png'), fullPage: true });
  });

  it('shows a subject as it was at an earlier instant, and switches the tenant header without signing in again', async () => {
    await page.goto(`${base}/console/#/subjects/${SUBJECT}`);
    await page.locator('.trow').first().waitFor();
    await page.getByLabel('As of (your time)').fill('2020-01-01T00:00:00');
    await page.getByText('Nothing is stored for this subject.').waitFor();
    await page.getByRole('button', { name: 'Now' }).click();
    await page.locator('.trow').first().waitFor();
    // This service is single-tenant (no SERVICE_REQUIRE_TENANT), so it ignores the header; the
    // console must still send it, in a header, with the key in a header too.
    await page.getByTestId('tenant').fill('acme');
    const sent = page.waitForRequest((r) => r.url().includes('/v1/timeline'));
    await page.getByRole('button', { name: 'Switch' }).click();
    const req = await sent;
    assert.equal(req.headers()['x-tenant-id'], 'acme');
    assert.equal(req.headers()['x-api-key'], KEY);
    assert.ok(!req.url().includes(KEY));
    assert.match(await page.evaluate(() => sessionStorage.getItem('memory-console.session') ?? ''), /"tenant":"acme"/);
    await page.getByTestId('tenant').fill('');
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.locator('.trow').first().waitFor();
  });

  it('fits a phone width without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/console/#/subjects/${SUBJECT}`);
    await page.locator('.trow').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the viewport`);
    await page.screenshot({ path: join(SHOTS, 'subject-phone.png') });
  });
});
