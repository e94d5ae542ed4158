import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, provisionDb, REPO_ROOT, runCli, ServiceDb, ServiceProcess, startService } from './reliability/harness/service-process';

/**
 * Every shell example of docs/api.md, run as written (bash, curl, jq) against the built service in
 * the configuration the page assumes: an API key, SERVICE_REQUIRE_TENANT=true (the `$TENANT`
 * header), snapshots on, receipts signed. The page's first block sets BASE/KEY/TENANT/JSON; the
 * others run after it in page order, except subject deletion, which runs last so the blocks after
 * it in the page still find data. Each block must exit 0 and every request it makes must be
 * answered without an auth refusal or a server error; a 404 is allowed only for the blocks whose
 * ids are placeholders (a compile job, a webhook event, a snapshot, an API key). BASE is the one value
 * changed: the service under test listens on a free port rather than 8100.
 */
const KEY = 'docs-check-key-0123456789abcdef';
const PLACEHOLDER_IDS = ['3f0c2a8e-5a1d-4c57-9a59-2b1f1e0c9d11', '9b7e51b4-3c1e-4f0a-8a51-0c7f5f2d8e11', '5d0f7c3e-1b2a-4c3d-9e8f-7a6b5c4d3e2f', '1f2e3d4c5b6a'];

interface Block {
  line: number;
  text: string;
}

function bashBlocks(file: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  readFileSync(join(REPO_ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (current === null && line.startsWith('```bash')) current = { line: i + 1, text: '' };
      else if (current !== null && line.startsWith('```')) {
        blocks.push(current);
        current = null;
      } else if (current !== null) current.text += `${line}\n`;
    });
  return blocks;
}

interface Answer {
  method: string;
  url: string;
  status: number;
}

/** The access log's answers written since `from` (the service's access lines). */
function answers(svc: ServiceProcess, from: number): Answer[] {
  const out: Answer[] = [];
  for (const line of svc.lines.slice(from)) {
    if (!line.includes('"request completed"') && !line.includes('"request errored"')) continue;
    try {
      const entry = JSON.parse(line) as { req?: { method: string; url: string }; res?: { status: number } };
      if (entry.req && entry.res) out.push({ method: entry.req.method, url: entry.req.url, status: entry.res.status });
    } catch {
      // not a log line
    }
  }
  return out;
}

const haveTools = ['bash', 'curl', 'jq'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);

describe('docs/api.md examples, run as written', () => {
  jest.setTimeout(300_000);
  let db: ServiceDb;
  let svc: ServiceProcess | null = null;
  let cwd: string;
  const env = (db: ServiceDb) =>
    baseEnv({
      ...db.env,
      SERVICE_API_KEY: KEY,
      SERVICE_REQUIRE_TENANT: 'true',
      SERVICE_ENABLE_SNAPSHOTS: 'true',
      SERVICE_RECEIPT_SIGNING_KEYS: 'docs=docs-signing-secret-0123456789',
      SERVICE_LOG_LEVEL: 'info',
    });

  beforeAll(async () => {
    if (!haveTools) throw new Error('bash, curl and jq are needed to run the documentation examples');
    cwd = mkdtempSync(join(tmpdir(), 'memsvc-docs-'));
    db = await provisionDb();
  }, 180_000);

  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('every block succeeds, with no refusal and no server error', async () => {
    const blocks = bashBlocks('docs/api.md');
    expect(blocks.length).toBeGreaterThan(30);
    const [preamble, ...rest] = blocks;
    expect(preamble.text).toContain('BASE=');
    const deletions = rest.filter((b) => /-X DELETE[^\n]*\/v1\/subjects\//.test(b.text));
    const ordered = [...rest.filter((b) => !deletions.includes(b)), ...deletions];

    // A snapshot named "demo" for the restore-by-name example: created with the CLI, which on the
    // embedded engine needs the data directory to itself, so before the service starts.
    svc = await startService(env(db));
    const seed = await fetch(`${svc.base}/v1/episodes`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'X-Tenant-ID': 'acme', 'Content-Type': 'application/json' },
      body: JSON.stringify({ subject_id: 'user-42', source: 'chat', type: 'note', payload: { text: 'Renewal due in May.' } }),
    });
    expect(seed.status).toBe(201);
    await svc.stop();
    await db.release();
    const snap = await runCli(env(db), ['snapshot', 'create', 'user-42', '--name', 'demo', '--tenant', 'acme']);
    expect(snap.code).toBe(0);
    svc = await startService(env(db));

    const vars: Record<string, string> = { SERVICE_API_KEY: KEY, MEMORY_ID: '' };
    const failures: string[] = [];
    for (const block of ordered) {
      // The memory examples act on "$MEMORY_ID": the id of the memory the block before them wrote.
      if (block.text.includes('$MEMORY_ID') && !vars.MEMORY_ID) {
        const r = await fetch(`${svc.base}/v1/memories/search?subject_id=user-42&kind=profile_fact`, { headers: { 'X-API-Key': KEY, 'X-Tenant-ID': 'acme' } });
        vars.MEMORY_ID = ((await r.json()) as { memories: Array<{ id: string }> }).memories[0]?.id ?? '';
        expect(vars.MEMORY_ID).not.toBe('');
      }
      const from = svc.lines.length;
      // The page's BASE is localhost:8100; this service listens on a free port instead.
      const setup = preamble.text.replace(/^BASE=.*$/m, `BASE=${svc.base}`);
      const run = spawnSync('bash', ['-o', 'pipefail', '-c', `${setup}\n${block.text}`], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: cwd, ...vars },
        encoding: 'utf8',
        timeout: 60_000,
      });
      // Give the access log a moment: it is written when each response finishes.
      await new Promise((r) => setTimeout(r, 150));
      const where = `docs/api.md:${block.line}`;
      if (run.status !== 0) failures.push(`${where}: exit ${run.status}: ${(run.stderr || run.stdout).slice(0, 300)}`);
      const seen = answers(svc, from);
      // Probes are not access-logged: a block of probes shows itself by its output.
      if (seen.length === 0 && run.stdout.trim() === '') failures.push(`${where}: made no request`);
      for (const a of seen) {
        const placeholder = PLACEHOLDER_IDS.some((id) => a.url.includes(id));
        if (a.status >= 400 && !(a.status === 404 && placeholder)) {
          failures.push(`${where}: ${a.method} ${a.url} answered ${a.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
