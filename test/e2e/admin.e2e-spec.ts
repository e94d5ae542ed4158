import { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import * as advisoryLocks from 'src/common/db/advisory-locks';
import { computeChecksum } from 'src/modules/admin/export-document';
import { parseLossless } from 'src/modules/admin/python-json';
import { createTestApp, TestApp } from '../app-factory';
import { PYTHON_DOCUMENT } from '../fixtures/python-export-document';

/** Operator endpoints run with REQUIRE_TENANT on: they filter by `tenant_id`, never by the header. */
const TENANT_HEADER = 'X-Tenant-ID';

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message', 'request_id']);
  expect(res.body.error.code).toBe(code);
}

interface MemoryFixture {
  id?: string;
  subject_id: string;
  tenant_id?: string | null;
  kind?: string;
  content: string;
  confidence?: number;
  valid_to?: string | null;
  status?: string;
  source_episode_ids?: string[];
  embedding?: number[] | null;
  superseded_by?: string | null;
  metadata?: Record<string, unknown>;
  created_at?: string;
}

describe('admin endpoints', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  const wipe = () => t.ds.query('TRUNCATE episodes, memories, compile_jobs, receipts');

  async function postEpisode(subject: string, tenant: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await request(t.http)
      .post('/v1/episodes')
      .set(TENANT_HEADER, tenant)
      .send({ subject_id: subject, source: 'chat', type: 'conversation', payload, ...extra })
      .expect(201);
    return res.body.id;
  }

  /** Memories are written by the compiler module; the fixtures insert them directly. */
  async function insertMemory(m: MemoryFixture): Promise<string> {
    const id = m.id ?? randomUUID();
    await t.ds.query(
      `INSERT INTO memories (id, tenant_id, subject_id, kind, content, summary, confidence, valid_from, valid_to,
         source_episode_ids, metadata, status, embedding, superseded_by, attribute_key, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, '', $6, coalesce($11::timestamptz, now()), $7, $8::uuid[], $9::jsonb, $10, $12::real[], $13, NULL,
         coalesce($11::timestamptz, now()), coalesce($11::timestamptz, now()))`,
      [
        id, m.tenant_id ?? null, m.subject_id, m.kind ?? 'profile_fact', m.content, m.confidence ?? 0.8, m.valid_to ?? null,
        m.source_episode_ids ?? [], JSON.stringify(m.metadata ?? {}), m.status ?? 'active', m.created_at ?? null,
        m.embedding ?? null, m.superseded_by ?? null,
      ],
    );
    return id;
  }

  async function insertJob(subject: string, tenant: string | null, status: string, createdAt: string): Promise<string> {
    const [row] = await t.ds.query(
      `INSERT INTO compile_jobs (tenant_id, subject_id, status, memories_created, error, created_at, started_at, completed_at)
       VALUES ($1, $2, $3::varchar, $4, $5, $6::timestamptz, $6::timestamptz, CASE WHEN $3::varchar IN ('completed', 'failed') THEN $6::timestamptz END)
       RETURNING id`,
      [tenant, subject, status, status === 'completed' ? 2 : null, status === 'failed' ? 'boom' : null, createdAt],
    );
    return row.id;
  }

  const count = async (table: string) => (await t.ds.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;

  const exportText = async (subject: string, query = '') => {
    const res = await request(t.http).get(`/admin/export/${encodeURIComponent(subject)}${query}`).buffer(true).parse((r, cb) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (text += c));
      r.on('end', () => cb(null, text));
    });
    return res;
  };

  const postImport = (bodyText: string) => request(t.http).post('/admin/import').set('Content-Type', 'application/json').send(bodyText);

  /** The checksum recomputed from the document's own item texts (numbers kept as written). */
  const checksumOf = (text: string) => {
    const doc = parseLossless(text) as { episodes: unknown[]; memories: unknown[] };
    return computeChecksum(doc.episodes, doc.memories);
  };

  const withoutExportedAt = (text: string) => text.replace(/"exported_at": "[^"]*"/, '"exported_at": "-"');

  describe('GET /admin/jobs', () => {
    let jobs: Record<string, string>;
    beforeAll(async () => {
      await wipe();
      jobs = {
        acmeOld: await insertJob('s-1', 'acme', 'completed', '2026-01-01T00:00:00Z'),
        acmeNew: await insertJob('s-2', 'acme', 'failed', '2026-01-03T00:00:00Z'),
        globex: await insertJob('s-1', 'globex', 'pending', '2026-01-02T00:00:00Z'),
        legacy: await insertJob('s-1', null, 'running', '2026-01-04T00:00:00Z'),
      };
    });

    it('lists every tenant, legacy NULL-tenant jobs included, newest first with the documented keys', async () => {
      const res = await request(t.http).get('/admin/jobs').expect(200);
      expect(res.body).toMatchObject({ limit: 20, offset: 0 });
      expect(res.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobs.legacy, jobs.acmeNew, jobs.globex, jobs.acmeOld]);
      expect(Object.keys(res.body.jobs[0]).sort()).toEqual(
        ['completed_at', 'created_at', 'error', 'job_id', 'memories_created', 'started_at', 'status', 'subject_id', 'tenant_id'].sort(),
      );
      expect(res.body.jobs[1]).toMatchObject({ status: 'failed', error: 'boom', tenant_id: 'acme', memories_created: null });
      expect(res.body.jobs[3]).toMatchObject({ status: 'completed', memories_created: 2, error: null });
    });

    it('filters by tenant_id without returning NULL-tenant rows', async () => {
      const res = await request(t.http).get('/admin/jobs?tenant_id=acme').expect(200);
      expect(res.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobs.acmeNew, jobs.acmeOld]);
    });

    it('filters by status and subject_id, and pages with limit and offset', async () => {
      expect((await request(t.http).get('/admin/jobs?status=pending').expect(200)).body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobs.globex]);
      const bySubject = await request(t.http).get('/admin/jobs?subject_id=s-1&limit=1&offset=1').expect(200);
      expect(bySubject.body).toMatchObject({ limit: 1, offset: 1 });
      expect(bySubject.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobs.globex]);
    });

    it.each(['status=done', 'limit=0', 'limit=201', 'limit=abc', 'offset=-1', 'limit=1.5'])('answers %s with 422', async (q) => {
      expectEnvelope(await request(t.http).get(`/admin/jobs?${q}`), 422, 'validation_error');
    });
  });

  describe('GET /admin/tenant-audit', () => {
    it('counts NULL-tenant rows per table and gives guidance', async () => {
      await wipe();
      await postEpisode('audit', 'acme', { text: 'scoped' });
      await t.ds.query(`INSERT INTO episodes (subject_id, source, type, payload) VALUES ('legacy', 'chat', 'note', '{}'), ('legacy', 'chat', 'note', '{}')`);
      await insertMemory({ subject_id: 'legacy', content: 'old fact' });
      await insertMemory({ subject_id: 'audit', tenant_id: 'acme', content: 'new fact' });
      await insertJob('legacy', null, 'completed', '2026-01-01T00:00:00Z');
      // A receipt written before tenants were required.
      await t.ds.query(`INSERT INTO receipts (id, tenant_id, subject_id, mode, body) VALUES ('01JAUDITRECEIPT0000000000A', NULL, 'legacy', 'retrieval', '{}')`);
      const res = await request(t.http).get('/admin/tenant-audit').expect(200);
      expect(res.body.null_tenant_rows).toEqual({ episodes: 2, memories: 1, compile_jobs: 1, receipts: 1 });
      expect(res.body.guidance).toMatch(/backfill/i);
    });

    it('reports zero counts when every row has a tenant', async () => {
      await wipe();
      await postEpisode('audit', 'acme', { text: 'scoped' });
      const res = await request(t.http).get('/admin/tenant-audit').expect(200);
      expect(res.body.null_tenant_rows).toEqual({ episodes: 0, memories: 0, compile_jobs: 0, receipts: 0 });
      expect(typeof res.body.guidance).toBe('string');
    });
  });

  describe('export and import', () => {
    const SUBJECT = 'org/team/juno';
    let e1: string;
    let e2: string;
    let e3: string;
    let m1: string;
    let m2: string;
    let original: string;

    beforeAll(async () => {
      await wipe();
      e1 = await postEpisode(SUBJECT, 'acme', { messages: [{ role: 'user', content: 'My name is Juno Marsh. Ich heiße Jürgen 😀' }] }, { session_id: 'sess-1', metadata: { rating: 1.5, tags: ['a'] } });
      e2 = await postEpisode(SUBJECT, 'acme', { messages: [{ role: 'user', content: 'I prefer tea' }], score: 10, ratio: 0.1 }, { provenance: { channel: 'web' } });
      e3 = await postEpisode(SUBJECT, 'acme', { text: 'uncompiled note' });
      await t.ds.query(`UPDATE episodes SET last_compiled_at = now() WHERE id = ANY($1::uuid[])`, [[e1, e2]]);
      m1 = await insertMemory({
        subject_id: SUBJECT, tenant_id: 'acme', content: 'Prefers tea', confidence: 1, source_episode_ids: [e2],
        embedding: [0.1, 0.25, -1, 3.5e-7], metadata: { weight: 2, note: 'naïve' },
      });
      m2 = await insertMemory({
        subject_id: SUBJECT, tenant_id: 'acme', content: 'Prefers coffee', confidence: 0.5, source_episode_ids: [e1, e2],
        status: 'superseded', valid_to: '2026-02-03T04:05:06.123456Z', superseded_by: m1, embedding: null, kind: 'episode_summary',
      });
      // Another tenant's rows under the same subject id.
      await postEpisode(SUBJECT, 'globex', { text: 'globex row' });
      await insertMemory({ subject_id: SUBJECT, tenant_id: 'globex', content: 'globex fact' });
    });

    it('streams the document with the compat field names, a valid checksum and the tenant filter applied', async () => {
      const res = await exportText(SUBJECT, '?tenant_id=acme');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      original = res.body as string;
      const doc = JSON.parse(original);
      expect(doc.checksum).toBe(checksumOf(original));
      expect(doc).toMatchObject({ format_version: '1.0', subject_id: SUBJECT, tenant_id: 'acme', counts: { episodes: 3, memories: 2 } });
      expect(doc.exported_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      expect(doc.episodes.map((e: { id: string }) => e.id)).toEqual([e1, e2, e3]);
      for (const key of ['id', 'subject_id', 'tenant_id', 'source', 'type', 'payload', 'metadata', 'provenance', 'created_at', 'last_compiled_at']) {
        expect(doc.episodes[0]).toHaveProperty(key);
      }
      expect(doc.episodes[2].last_compiled_at).toBeNull();
      expect(doc.episodes[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      for (const key of ['id', 'subject_id', 'tenant_id', 'kind', 'content', 'summary', 'confidence', 'valid_from', 'valid_to',
        'source_episode_ids', 'metadata', 'status', 'embedding', 'created_at', 'updated_at']) {
        expect(doc.memories[0]).toHaveProperty(key);
      }
      // Python float forms: an integral confidence keeps `.0`, small values use exponents.
      expect(original).toContain('"confidence": 1.0');
      expect(original).toContain('"confidence": 0.5');
      expect(original).toMatch(/"embedding": \[0\.1, 0\.25, -1\.0, 3\.5e-07\]/);
      expect(original).toContain('"valid_to": "2026-02-03T04:05:06.123456+00:00"');
      expect(original).toContain('Ich hei\\u00dfe J\\u00fcrgen \\ud83d\\ude00');
      expect(original).not.toContain('globex');
    });

    it('exports every tenant without a filter, and 404s a subject with no rows (within the filter)', async () => {
      const all = JSON.parse((await exportText(SUBJECT)).body);
      expect(all).toMatchObject({ counts: { episodes: 4, memories: 3 }, tenant_id: null });
      expectEnvelope(await request(t.http).get('/admin/export/nobody'), 404, 'not_found');
      expectEnvelope(await request(t.http).get(`/admin/export/${encodeURIComponent(SUBJECT)}?tenant_id=initech`), 404, 'not_found');
      // `org/team/juno` unencoded is another path, not this subject.
      expectEnvelope(await request(t.http).get('/admin/export/org/team/juno'), 404, 'not_found');
    });

    it('rejects a tampered document with 400 checksum_mismatch and writes nothing', async () => {
      const before = [await count('episodes'), await count('memories')];
      const tampered = original.replace('Prefers tea', 'Prefers tee');
      const res = await postImport(`{"document": ${tampered}, "preserve_ids": false}`);
      expectEnvelope(res, 400, 'checksum_mismatch');
      expect(res.body.error.message).toMatch(/checksum/);
      expect([await count('episodes'), await count('memories')]).toEqual(before);
    });

    it('rejects an unsupported or missing format version with 400 mentioning the version', async () => {
      const v2 = await postImport(`{"document": ${original.replace('"format_version": "1.0"', '"format_version": "2.0"')}, "preserve_ids": false}`);
      expectEnvelope(v2, 400, 'unsupported_format_version');
      expect(v2.body.error.message).toMatch(/version/);
      const none = await postImport(`{"document": ${original.replace('"format_version": "1.0", ', '')}, "preserve_ids": false}`);
      expectEnvelope(none, 400, 'unsupported_format_version');
      expect(none.body.error.message).toMatch(/version/);
    });

    it('rejects ids that already exist with 400 "ID conflict" and writes nothing', async () => {
      const before = [await count('episodes'), await count('memories')];
      const res = await postImport(`{"document": ${original}}`);
      expectEnvelope(res, 400, 'id_conflict');
      expect(res.body.error.message).toMatch(/^ID conflict/);
      expect([await count('episodes'), await count('memories')]).toEqual(before);
    });

    it('rejects a body whose document is not an object with 422, and a malformed document with 400 invalid_document', async () => {
      expectEnvelope(await postImport('{"document": [1, 2]}'), 422, 'validation_error');
      expectEnvelope(await postImport('{"target_subject_id": "x"}'), 422, 'validation_error');
      expectEnvelope(await postImport('{"document": {"format_version": "1.0", "episodes": {}}}'), 400, 'invalid_document');
    });

    it('round-trips: wipe, import, re-export gives the same document except exported_at', async () => {
      await wipe();
      const res = await postImport(`{"document": ${original}}`).expect(200);
      expect(res.body).toEqual({ subject_id: SUBJECT, tenant_id: 'acme', episodes_imported: 3, memories_imported: 2, receipts_imported: 0, ids_preserved: true });
      const again = (await exportText(SUBJECT, '?tenant_id=acme')).body as string;
      expect(withoutExportedAt(again)).toBe(withoutExportedAt(original));
      // Compiled state is kept: the uncompiled episode is still waiting for the next compile.
      const rows = await t.ds.query(`SELECT id, last_compiled_at IS NOT NULL AS compiled, content_text, tenant_id FROM episodes ORDER BY seq`);
      expect(rows.map((r: { compiled: boolean }) => r.compiled)).toEqual([true, true, false]);
      expect(rows[0].content_text).toContain('user: My name is Juno Marsh');
      expect(rows.every((r: { tenant_id: string }) => r.tenant_id === 'acme')).toBe(true);
    });

    it('with preserve_ids=false gives new ids, remaps source_episode_ids and honours the targets', async () => {
      const res = await postImport(`{"document": ${original}, "preserve_ids": false, "target_subject_id": "copy/of-juno", "target_tenant_id": "initech"}`).expect(200);
      expect(res.body).toEqual({ subject_id: 'copy/of-juno', tenant_id: 'initech', episodes_imported: 3, memories_imported: 2, receipts_imported: 0, ids_preserved: false });
      expectEnvelope(await request(t.http).get(`/admin/export/${encodeURIComponent('copy/of-juno')}?tenant_id=acme`), 404, 'not_found');
      const copy = JSON.parse((await exportText('copy/of-juno', '?tenant_id=initech')).body) as {
        episodes: { id: string; subject_id: string; tenant_id: string; provenance: unknown }[];
        memories: { id: string; source_episode_ids: string[]; superseded_by: string; content: string; subject_id: string }[];
      };
      const newIds = copy.episodes.map((e) => e.id);
      expect(newIds).toHaveLength(3);
      for (const id of newIds) expect([e1, e2, e3]).not.toContain(id);
      expect(copy.episodes.every((e) => e.subject_id === 'copy/of-juno' && e.tenant_id === 'initech')).toBe(true);
      const [tea, coffee] = copy.memories.sort((a, b) => a.content.localeCompare(b.content)).reverse();
      expect([m1, m2]).not.toContain(tea.id);
      expect(tea.source_episode_ids).toEqual([newIds[1]]);
      expect(coffee.source_episode_ids).toEqual([newIds[0], newIds[1]]);
      expect(coffee.superseded_by).toBe(tea.id);
    });

    it("takes the subject's compile lock once per tenant it writes in, before anything is written", async () => {
      // A pass-through spy: the lock is really taken, each call counted.
      const locks = jest.spyOn(advisoryLocks, 'lockSubject');
      try {
        await postImport(`{"document": ${original}, "preserve_ids": false, "target_subject_id": "once/of-juno", "target_tenant_id": "initech"}`).expect(200);
        expect(locks.mock.calls.map(([, tenantId, subjectId]) => [tenantId, subjectId])).toEqual([['initech', 'once/of-juno']]);
      } finally {
        locks.mockRestore();
      }
    });

    it('imports a document written by Python json.dumps(sort_keys=True), floats like 1.0 and non-ASCII text included', async () => {
      await wipe();
      const res = await postImport(`{"document": ${PYTHON_DOCUMENT}, "target_tenant_id": "acme"}`).expect(200);
      expect(res.body).toEqual({ subject_id: 'user-1', tenant_id: 'acme', episodes_imported: 1, memories_imported: 1, receipts_imported: 0, ids_preserved: true });
      const text = (await exportText('user-1')).body as string;
      const doc = JSON.parse(text);
      expect(doc.checksum).toBe(checksumOf(text));
      const [row] = await t.ds.query(`SELECT content, confidence, embedding FROM memories`);
      expect(row).toEqual({ content: 'Ich heiße Jürgen', confidence: 1, embedding: [0.1, -2, 1.5e-5] });
      const [ep] = await t.ds.query(`SELECT payload::text AS payload, created_at, last_compiled_at IS NOT NULL AS compiled FROM episodes`);
      expect(ep.payload).toContain('"score": 1.0');
      expect(ep.compiled).toBe(true);
      expect(doc.episodes[0].created_at).toBe('2026-01-02T03:04:05.123456+00:00');
    });

    it('carries sensitivity labels through export and import, written only on labelled memories', async () => {
      await wipe();
      const remember = (body: object) => request(t.http).post('/v1/memories').set('X-Tenant-ID', 'acme').send({ subject_id: 'labelled', kind: 'profile_fact', ...body }).expect(201);
      const plain = (await remember({ content: 'I live in Oslo.' })).body.id;
      const medical = (await remember({ content: 'I take insulin.', sensitivity_labels: ['health'] })).body.id;
      const text = (await exportText('labelled', '?tenant_id=acme')).body as string;
      const doc = JSON.parse(text) as { memories: { id: string; sensitivity_labels?: string[] }[]; checksum: string };
      expect(doc.memories.find((m) => m.id === medical)!.sensitivity_labels).toEqual(['health']);
      expect('sensitivity_labels' in doc.memories.find((m) => m.id === plain)!).toBe(false);
      expect(doc.checksum).toBe(checksumOf(text));
      await wipe();
      await postImport(`{"document": ${text}}`).expect(200);
      const rows = await t.ds.query(`SELECT id, sensitivity_labels FROM memories ORDER BY content`);
      expect(rows).toEqual([{ id: plain, sensitivity_labels: [] }, { id: medical, sensitivity_labels: ['health'] }]);
      // A label the PATCH endpoint would refuse is refused in a document too.
      const bad = text.replace('["health"]', '["no spaces"]');
      const rehashed = bad.replace(/"checksum": "[0-9a-f]+"/, `"checksum": "${checksumOf(bad)}"`);
      await wipe();
      const refused = await postImport(`{"document": ${rehashed}}`).expect(400);
      expect(refused.body.error.code).toBe('invalid_document');
      expect(refused.body.error.message).toContain('sensitivity_labels[0]');
    });

    it('keeps every microsecond through import and re-export, so the re-export carries the original checksum', async () => {
      await wipe();
      const original = JSON.parse(PYTHON_DOCUMENT) as { checksum: string };
      await postImport(`{"document": ${PYTHON_DOCUMENT}}`).expect(200);
      const doc = JSON.parse((await exportText('user-1', '?tenant_id=acme')).body as string);
      expect(doc.episodes[0]).toMatchObject({ created_at: '2026-01-02T03:04:05.123456+00:00', last_compiled_at: '2026-01-02T03:05:00.000001+00:00' });
      expect(doc.memories[0]).toMatchObject({ valid_from: '2026-01-02T03:05:00.000001+00:00', created_at: '2026-01-02T03:05:00.000001+00:00', updated_at: '2026-01-02T03:05:00.000001+00:00' });
      expect(doc.checksum).toBe(original.checksum);
      // And the database holds the microseconds, not a millisecond rounding of them.
      const [row] = await t.ds.query(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'US') AS us FROM episodes`);
      expect(row.us).toBe('123456');
    });

    it('streams a subject larger than one page in a stable order, ties on created_at included', async () => {
      await wipe();
      await t.ds.query(
        `INSERT INTO episodes (tenant_id, subject_id, source, type, payload, created_at)
         SELECT 'acme', 'big', 'chat', 'note', jsonb_build_object('n', g), '2026-01-01T00:00:00Z'::timestamptz + ((g / 400) * interval '1 second')
         FROM generate_series(1, 1100) g`,
      );
      await t.ds.query(
        `INSERT INTO memories (tenant_id, subject_id, kind, content, created_at, updated_at, valid_from)
         SELECT 'acme', 'big', 'profile_fact', 'fact ' || g, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
         FROM generate_series(1, 1001) g`,
      );
      const text = (await exportText('big')).body as string;
      const doc = JSON.parse(text) as { counts: unknown; episodes: { id: string; payload: { n: number } }[]; memories: { id: string }[]; checksum: string };
      expect(doc.episodes.map((e) => e.payload.n)).toEqual(Array.from({ length: 1100 }, (_, i) => i + 1));
      expect(doc.counts).toEqual({ episodes: 1100, memories: 1001 });
      expect(new Set(doc.memories.map((m) => m.id)).size).toBe(1001);
      expect(doc.checksum).toBe(checksumOf(text));
    });
  });
});

// The fixture's checksum really is Python's sha256 over the sorted, ASCII-escaped items.
it('the Python fixture carries a checksum over json.dumps(sort_keys=True) of its items', () => {
  const items =
    '{"episodes": [{"created_at": "2026-01-02T03:04:05.123456+00:00", "id": "3f1c2a4e-8b7d-4c1a-9e2f-1a2b3c4d5e6f", ' +
    '"last_compiled_at": "2026-01-02T03:05:00.000001+00:00", "metadata": {}, "payload": {"messages": [{"content": ' +
    '"Ich hei\\u00dfe J\\u00fcrgen \\ud83d\\ude00", "role": "user"}], "n": 3, "score": 1.0, "tiny": 1e-07}, ' +
    '"provenance": {"channel": "web"}, "source": "chat", "subject_id": "user-1", "tenant_id": "acme", "type": "conversation"}], ' +
    '"memories": [{"confidence": 1.0, "content": "Ich hei\\u00dfe J\\u00fcrgen", "created_at": "2026-01-02T03:05:00.000001+00:00", ' +
    '"embedding": [0.1, -2.0, 1.5e-05], "id": "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", "kind": "profile_fact", "metadata": {"k": 0.5}, ' +
    '"source_episode_ids": ["3f1c2a4e-8b7d-4c1a-9e2f-1a2b3c4d5e6f"], "status": "active", "subject_id": "user-1", "summary": "name", ' +
    '"tenant_id": "acme", "updated_at": "2026-01-02T03:05:00.000001+00:00", "valid_from": "2026-01-02T03:05:00.000001+00:00", ' +
    '"valid_to": null}]}';
  expect(createHash('sha256').update(items).digest('hex')).toBe('f17912221c636c94e2839376f1383ed1d0a017beb6da11927723af630a22ca1e');
});
