import { get } from 'node:http';
import { readFileSync } from 'node:fs';
import { call } from './harness/http-raw';
import { baseEnv, prodNodeFlags, provisionDb, runCli, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, sizes } from './harness/settings';

/**
 * Large subjects against the built service started with start:prod's node flags (192 MB heap):
 * - LARGE: episodes of ~2 MB (legal bodies just under the 2 MiB limit), every third one made of
 *   ~90,000 JSON numbers (the most values a body may hold, which cost far more in memory once
 *   parsed than their bytes);
 * - MANY: thousands of small episodes.
 * Then every per-subject read on both: timeline pages, support reads (health, SLA, handoff,
 * resolutions, the background health refresh), export, sync and async compile, snapshot restore.
 * Before bounded reads these loaded every payload at once and the process died with "Reached
 * heap limit". Each read must answer 200, the process must stay up, and every acknowledged
 * episode must still be there. CI: 24 large and 3,000 small episodes; long run: 70 and 100,000.
 */
const N = sizes.largeEpisodes();
const MANY = sizes.manyEpisodes();
const EPISODE_BYTES = 2_000_000;
const LARGE = 'large-subject';
const SMALL = 'many-episodes';
const NODE_FLAGS = prodNodeFlags().join(' ');

function largeEpisode(i: number) {
  const base = { subject_id: LARGE, session_id: `s${i % 3}`, source: i % 2 ? 'agent' : 'user', type: 'conversation' };
  const say = `Message ${i}: urgent, production is down.`;
  if (i % 3 === 2) {
    // 90,000 numbers of 20 characters: 1.8 MB, and as many parsed values as a body may hold.
    const readings = Array.from({ length: 90_000 }, (_, k) => `${1_000_000 + ((i * 7919 + k * 104729) % 8_999_999)}.123456789012`);
    return { ...base, payload: { messages: [{ role: 'user', content: say }], readings: `[${readings.join(',')}]` } };
  }
  // Varied words, so neither the database nor anything else can shrink it much.
  const words: string[] = [];
  let size = 0;
  for (let w = 0; size < EPISODE_BYTES - 400; w++) {
    const word = `w${(i * 7919 + w * 104729) % 1000003}`;
    words.push(word);
    size += word.length + 1;
  }
  return { ...base, payload: { messages: [{ role: i % 2 ? 'assistant' : 'user', content: `${say} ${words.join(' ')}` }] } };
}

/** The numbers episode as raw JSON text: `readings` is a real array, not a string. */
function body(ep: ReturnType<typeof largeEpisode>): string {
  const p = ep.payload as { readings?: string };
  if (p.readings === undefined) return JSON.stringify(ep);
  const { readings, ...rest } = p;
  return JSON.stringify({ ...ep, payload: { ...rest, readings: '__R__' } }).replace('"__R__"', readings);
}

/** Reads a response to its end, counting bytes and keeping only the last 300. */
function drain(base: string, path: string): Promise<{ status: number; bytes: number; tail: string }> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, (res) => {
      let bytes = 0;
      let tail = '';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        tail = (tail + c.toString('latin1')).slice(-300);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, tail }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Peak resident memory of a process so far (VmHWM), MB; null where /proc is not there. */
function peakRssMb(pid: number | undefined): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

describe(`subjects with ${N} episodes of ~2 MB and ${MANY} small episodes (built service, node ${NODE_FLAGS})`, () => {
  let db: ServiceDb;
  let svc: ServiceProcess;
  const env = () => baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn', SERVICE_ENABLE_SNAPSHOTS: 'true' });
  const largeIds: string[] = [];
  let smallCount = 0;
  const figures: string[] = [];

  const alive = () => expect({ exit: svc.child.exitCode, signal: svc.child.signalCode }).toEqual({ exit: null, signal: null });
  const note = (what: string) => figures.push(`${what}: peak RSS ${peakRssMb(svc.child.pid)} MB`);

  /** Every episode id of a subject, page after page (next_cursor), and the number of pages. */
  async function timelineIds(subject: string, limit?: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q = `subject_id=${subject}${limit ? `&limit=${limit}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call(svc.base, 'GET', `/v1/timeline?${q}`, undefined, {}, 120_000);
      expect(res.status).toBe(200);
      ids.push(...res.body.episodes.map((e: { id: string }) => e.id));
      // A build without paging has no next_cursor: one page, and the page count below says so.
      cursor = res.body.next_cursor ?? null;
      pages++;
    } while (cursor !== null && pages < 10_000);
    return { ids, pages };
  }

  beforeAll(async () => {
    db = await provisionDb();
    svc = await startService(env(), { prodFlags: true });
    for (let i = 0; i < N; i++) {
      const res = await fetch(`${svc.base}/v1/episodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(largeEpisode(i)), signal: AbortSignal.timeout(120_000) });
      expect(res.status).toBe(201);
      largeIds.push(((await res.json()) as { id: string }).id);
    }
    for (let start = 0; start < MANY; start += 100) {
      const episodes = Array.from({ length: Math.min(100, MANY - start) }, (_, k) => ({
        subject_id: SMALL, session_id: `t${(start + k) % 7}`, source: (start + k) % 2 ? 'agent' : 'user', type: 'conversation',
        payload: { messages: [{ role: (start + k) % 2 ? 'assistant' : 'user', content: `Ticket note ${start + k}: the export job is slow again.` }] },
      }));
      // A busy embedded engine may shed a batch with 503 + Retry-After before writing anything
      // (its one connection stayed taken past the wait limit); a client retries after the wait.
      let res = await call(svc.base, 'POST', '/v1/episodes/batch', { episodes }, {}, 120_000);
      for (let attempt = 1; res.status === 503 && attempt < 5; attempt++) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        res = await call(svc.base, 'POST', '/v1/episodes/batch', { episodes }, {}, 120_000);
      }
      expect(res.status).toBe(201);
      smallCount += episodes.length;
    }
    note(`ingest of ${N} large and ${MANY} small episodes`);
  }, 1_800_000);

  afterAll(async () => {
    for (const line of figures) console.log(`large-subject: ${line}`);
    await svc?.stop();
    await db?.drop();
  });

  it('pages the timeline by bytes and returns every acknowledged episode once, in order', async () => {
    const large = await timelineIds(LARGE);
    alive();
    expect(large.pages).toBeGreaterThan(1);
    expect(large.ids).toEqual(largeIds);
    const small = await timelineIds(SMALL, 10_000);
    alive();
    expect(small.ids).toHaveLength(smallCount);
    expect(new Set(small.ids).size).toBe(smallCount);
    note(`timeline (${large.pages} pages of the large subject, ${small.pages} of the other)`);
  }, 900_000);

  it('answers health, SLA, handoff, resolutions and the health refresh', async () => {
    for (const subject of [LARGE, SMALL]) {
      expect((await call(svc.base, 'GET', `/v1/subjects/${subject}/health`, undefined, {}, 120_000)).status).toBe(200);
      expect((await call(svc.base, 'GET', `/v1/subjects/${subject}/sla`, undefined, {}, 120_000)).status).toBe(200);
      const session = subject === LARGE ? 's1' : 't1';
      expect((await call(svc.base, 'POST', '/v1/handoff', { subject_id: subject, session_id: session }, {}, 120_000)).status).toBe(200);
      expect((await call(svc.base, 'POST', '/v1/resolutions', { subject_id: subject, session_id: session, status: 'resolved' }, {}, 120_000)).status).toBe(200);
      expect((await call(svc.base, 'GET', `/v1/resolutions?subject_id=${subject}`, undefined, {}, 120_000)).status).toBe(200);
    }
    // An ingest with a session marks the subject for the background health refresh.
    const res = await fetch(`${svc.base}/v1/episodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(largeEpisode(N)), signal: AbortSignal.timeout(120_000) });
    expect(res.status).toBe(201);
    largeIds.push(((await res.json()) as { id: string }).id);
    // The refresh runs in the background, a moment after the ingest.
    await new Promise((r) => setTimeout(r, 2000));
    alive();
    note('support reads');
  }, 900_000);

  it('streams each export whole', async () => {
    const large = await drain(svc.base, `/admin/export/${LARGE}`);
    expect(large.status).toBe(200);
    expect(large.bytes).toBeGreaterThan(largeIds.length * 1_500_000);
    expect(large.tail).toContain(`"counts": {"episodes": ${largeIds.length}, `);
    alive();
    const small = await drain(svc.base, `/admin/export/${SMALL}`);
    expect(small.status).toBe(200);
    expect(small.tail).toContain(`"counts": {"episodes": ${smallCount}, `);
    alive();
    note(`export (${(large.bytes / 1e6).toFixed(0)} MB and ${(small.bytes / 1e6).toFixed(1)} MB)`);
  }, 900_000);

  it('compiles synchronously in rounds, echoes at most 100 memories, then a job compiles the rest', async () => {
    const many = await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: SMALL }, {}, 600_000);
    expect(many.status).toBe(200);
    expect(many.body.memories_created).toBeGreaterThanOrEqual(smallCount);
    expect(many.body.memories).toHaveLength(100);
    expect(many.body.memories_omitted).toBe(many.body.memories_created - 100);
    alive();
    const sync = await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: LARGE }, {}, 600_000);
    expect(sync.status).toBe(200);
    expect(sync.body.memories_created).toBeGreaterThanOrEqual(largeIds.length);
    alive();
    const extra = await fetch(`${svc.base}/v1/episodes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(largeEpisode(N + 1)), signal: AbortSignal.timeout(120_000) });
    expect(extra.status).toBe(201);
    largeIds.push(((await extra.json()) as { id: string }).id);
    const job = await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: LARGE, async: true });
    expect(job.status).toBe(202);
    await eventually('the compile job completes', 600_000, async () => (await call(svc.base, 'GET', `/v1/memories/compile/${job.body.job_id}`)).body.status === 'completed', 500);
    alive();
    note('compile');
  }, 1_800_000);

  it('restores a snapshot of the large subject and reads it back', async () => {
    // Snapshots are created by the operator CLI, which needs the embedded data directory to itself.
    note('before the snapshot');
    await svc.stop();
    const created = await runCli(env(), ['snapshot', 'create', LARGE, '--name', 'big'], 600_000);
    expect(created.code).toBe(0);
    svc = await startService(env(), { prodFlags: true });
    const restored = await call(svc.base, 'POST', '/admin/snapshots/restore-by-name', { name: 'big', target_subject_id: 'large-restored' }, {}, 600_000);
    expect(restored.status).toBe(200);
    expect(restored.body.episodes_restored).toBe(largeIds.length);
    alive();
    const back = await timelineIds('large-restored');
    expect(back.ids).toHaveLength(largeIds.length);
    alive();
    note('snapshot restore and its timeline (fresh process)');
  }, 1_800_000);
});
