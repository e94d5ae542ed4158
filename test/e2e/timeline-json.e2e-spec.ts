import request from 'supertest';
import { TenantScope } from 'src/common/db/tenant-scope';
import { SubjectsService } from 'src/modules/subjects/subjects.service';
import { createTestApp, TestApp } from '../app-factory';

/**
 * `GET /v1/timeline` is written by PostgreSQL (SubjectsService.timelineJson, the MEMORY_JSON and
 * EPISODE_JSON row shapes) while every other read maps rows to DTOs in JavaScript
 * (`timeline()`, which MCP's get_timeline uses). The two must be the same TimelineDto to any
 * JSON parser: every field, every value (text with quotes, backslashes, control characters and
 * non-BMP characters; nulls; numbers; nested JSON; millisecond timestamps), on every page.
 */
describe('timeline as JSON written by the database', () => {
  let t: TestApp;
  const subject = 'tl-json "quoted" \\ ü 🙂';
  const rowsPath = (q: { limit?: number; cursor?: string; as_of?: string } = {}) =>
    t.app.get(SubjectsService).timeline({ requestId: 'timeline-json-spec', scope: TenantScope.ofRequest(null) }, subject, q.limit, q.cursor, q.as_of);
  const wire = async (q: Record<string, string | number> = {}) =>
    (await request(t.http).get('/v1/timeline').query({ subject_id: subject, ...q }).expect(200).expect('Content-Type', /application\/json/)).body;

  beforeAll(async () => {
    t = await createTestApp();
    const texts = [
      'My name is Zoë "Z" O\'Neil.\nI live in Kraków\t(Poland) and I prefer email.',
      'Back\\slash, a bell \u0007 and a NUL-free control \u001f; emoji 🙂 and 漢字.',
      'I am on the Team plan. My ticket is TCK-1042.',
    ];
    for (const [i, content] of texts.entries()) {
      await request(t.http)
        .post('/v1/episodes')
        .send({
          subject_id: subject,
          ...(i === 1 ? {} : { session_id: `s-${i}` }),
          source: 'user',
          type: 'conversation',
          payload: { messages: [{ role: 'user', content }], n: 1.5, big: 12345678901, neg: -0.25, flag: true, none: null, list: [1, 'two', { three: 3 }] },
          metadata: { channel: 'chat', nested: { deep: ['a', 'b'] } },
        })
        .expect(201);
    }
    await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
    // A remembered memory with labels and a confidence that is not a round number, and one it supersedes.
    const first = (await request(t.http).post('/v1/memories').send({ subject_id: subject, kind: 'profile_fact', content: 'I live in Oslo.', confidence: 0.3333333333333333, metadata: { from: 'crm', score: 0.1 } }).expect(201)).body;
    await request(t.http).patch(`/v1/memories/${first.id}/labels`).send({ sensitivity_labels: ['pii', 'location'] }).expect(200);
    await request(t.http).post('/v1/memories').send({ subject_id: subject, kind: 'profile_fact', content: 'I live in Tromso.' }).expect(201);
  });
  afterAll(() => t.close());

  it('the default page equals the DTO mapping of the same rows, superseded memories, nulls and labels included', async () => {
    const body = await wire();
    const expected = JSON.parse(JSON.stringify(await rowsPath()));
    expect(body).toEqual(expected);
    expect(body.episodes).toHaveLength(3);
    expect(body.episodes.some((e: { session_id: string | null }) => e.session_id === null)).toBe(true);
    expect(body.memories.some((m: { status: string; valid_to: string | null }) => m.status === 'superseded' && m.valid_to !== null)).toBe(true);
    expect(body.memories.some((m: { sensitivity_labels: string[] }) => m.sensitivity_labels.length === 2)).toBe(true);
    expect(body.episodes[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('every page of a paged read and an as-of read equal the DTO mapping, cursors included', async () => {
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await wire({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(body).toEqual(JSON.parse(JSON.stringify(await rowsPath({ limit: 2, cursor }))));
      cursor = body.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(2);
    const asOf = new Date().toISOString();
    expect(await wire({ as_of: asOf })).toEqual(JSON.parse(JSON.stringify(await rowsPath({ as_of: asOf }))));
  });

  it('an unknown subject is an empty timeline in the same shape', async () => {
    const body = (await request(t.http).get('/v1/timeline').query({ subject_id: 'nobody-here' }).expect(200)).body;
    expect(body).toEqual({ subject_id: 'nobody-here', episodes: [], memories: [], next_cursor: null });
  });
});
