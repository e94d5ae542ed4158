import type { ArgumentsHost } from '@nestjs/common';
import request from 'supertest';
import { AllExceptionsFilter } from 'src/common/errors/all-exceptions.filter';
import { createTestApp, TestApp } from '../app-factory';

/**
 * Validation counts what the columns count (code points, as PostgreSQL's varchar does), every
 * numeric parameter has a maximum, and a value the database still refuses is a 422 naming the
 * field, never a 500 that clients retry.
 */
describe('input limits match the columns', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // 256 visible characters but 512 code points: class-validator counted 256, the column 512.
  const SELECTOR_HEAVY = 'a\uFE0F'.repeat(256);
  // 256 code points in 512 UTF-16 code units: fits varchar(256).
  const ASTRAL_256 = '\u{1F600}'.repeat(256);
  const episode = (over: Record<string, unknown>) => ({ subject_id: 'limits', source: 'user', type: 'note', payload: { text: 'hi' }, ...over });
  const expectField = (res: request.Response, loc: (string | number)[]) => {
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
  };

  it.each([
    ['subject_id', ['body', 'subject_id']],
    ['source', ['body', 'source']],
    ['session_id', ['body', 'session_id']],
    ['idempotency_key', ['body', 'idempotency_key']],
  ])('answers 422 for a %s of 256 characters with variation selectors (512 code points), and stores nothing', async (field, loc) => {
    expectField(await request(t.http).post('/v1/episodes').send(episode({ [field]: SELECTOR_HEAVY })), loc);
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes`);
    expect(n).toBe(0);
  });

  it('counts code points on every route that takes a subject id (body, query and path)', async () => {
    const s = SELECTOR_HEAVY;
    expectField(await request(t.http).post('/v1/episodes/batch').send({ episodes: [episode({}), episode({ subject_id: s })] }), ['body', 'episodes', 1, 'subject_id']);
    expectField(await request(t.http).post('/v1/memories/compile').send({ subject_id: s }), ['body', 'subject_id']);
    expectField(await request(t.http).post('/v1/context').send({ subject_id: s, task: 'x' }), ['body', 'subject_id']);
    expectField(await request(t.http).get('/v1/memories/search').query({ subject_id: s }), ['query', 'subject_id']);
    expectField(await request(t.http).get('/v1/timeline').query({ subject_id: s }), ['query', 'subject_id']);
    expectField(await request(t.http).post('/v1/resolutions').send({ subject_id: s, session_id: 'x' }), ['body', 'subject_id']);
    expectField(await request(t.http).post('/v1/handoff').send({ subject_id: 'x', session_id: s }), ['body', 'session_id']);
    expectField(await request(t.http).get(`/v1/subjects/${encodeURIComponent(s)}/health`), ['path', 'subject_id']);
    expectField(await request(t.http).delete(`/v1/subjects/${encodeURIComponent(s)}`), ['path', 'subject_id']);
    expectField(await request(t.http).get('/admin/jobs').query({ subject_id: s }), ['query', 'subject_id']);
    expectField(await request(t.http).get(`/admin/export/${encodeURIComponent(s)}`), ['path', 'subject_id']);
  });

  it('accepts a subject id of 256 astral characters (256 code points, 512 UTF-16 units) and finds it again', async () => {
    const res = await request(t.http).post('/v1/episodes').send(episode({ subject_id: ASTRAL_256 })).expect(201);
    expect(res.body.subject_id).toBe(ASTRAL_256);
    const timeline = await request(t.http).get('/v1/timeline').query({ subject_id: ASTRAL_256 }).expect(200);
    expect(timeline.body.episodes).toHaveLength(1);
    expectField(await request(t.http).post('/v1/episodes').send(episode({ subject_id: `${ASTRAL_256}x` })), ['body', 'subject_id']);
  });

  it.each([
    ['/admin/jobs', 'offset', '99999999999999999999'],
    ['/admin/jobs', 'offset', '1000000001'],
    ['/admin/jobs', 'limit', '99999999999999999999'],
    ['/v1/subjects', 'offset', '99999999999999999999'],
    ['/v1/subjects', 'limit', '1e20'],
    ['/v1/timeline?subject_id=limits', 'limit', '99999999999999999999'],
    ['/v1/memories/search?subject_id=limits', 'limit', '99999999999999999999'],
  ])('answers GET %s with %s=%s with 422 naming the parameter', async (path, param, value) => {
    expectField(await request(t.http).get(`${path}${path.includes('?') ? '&' : '?'}${param}=${value}`), ['query', param]);
  });

  it('still pages /admin/jobs at the largest offset allowed', async () => {
    expect((await request(t.http).get('/admin/jobs?offset=1000000000').expect(200)).body).toMatchObject({ jobs: [], offset: 1000000000 });
  });

  describe('a value the database refuses (the backstop behind validation)', () => {
    /** A real driver error of this engine, from a statement that fails like an unvalidated input would. */
    async function driverError(statement: string, params: unknown[]): Promise<unknown> {
      try {
        await t.ds.query(statement, params);
      } catch (e) {
        return e;
      }
      throw new Error('the statement did not fail');
    }

    function render(error: unknown, req: Record<string, unknown>) {
      const res = { statusCode: 0, body: undefined as unknown, headersSent: false, getHeader: () => 'rid', setHeader: () => undefined };
      Object.assign(res, {
        status: (s: number) => ((res.statusCode = s), res),
        json: (b: unknown) => ((res.body = b), res),
      });
      const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ method: 'POST', path: '/x', params: {}, query: {}, body: {}, ...req }) }) } as unknown as ArgumentsHost;
      new AllExceptionsFilter().catch(error, host);
      return res as unknown as { statusCode: number; body: { error: { code: string; details: { type: string; loc: unknown[]; msg: string }[] } } };
    }

    it('maps 22001 (string too long) to 422 naming the field that is too long', async () => {
      const long = 'x'.repeat(300);
      const err = await driverError(`INSERT INTO episodes (subject_id, source, type, payload) VALUES ($1, 'u', 'n', '{}')`, [long]);
      const res = render(err, { body: { subject_id: long, source: 'u', metadata: { note: 'short' } } });
      expect(res.statusCode).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual([{ type: 'string_too_long', loc: ['body', 'subject_id'], msg: expect.any(String) }]);
    });

    it('maps 22003 (number out of range) to 422 naming the parameter', async () => {
      const err = await driverError(`SELECT * FROM compile_jobs OFFSET $1::int`, ['99999999999999999999']);
      const res = render(err, { query: { limit: '20', offset: '99999999999999999999' } });
      expect(res.statusCode).toBe(422);
      expect(res.body.error.details[0]).toMatchObject({ type: 'number_out_of_range', loc: ['query', 'offset'] });
    });

    it('maps 22P02 (invalid text representation) to 422 naming the field, without echoing the value', async () => {
      const err = await driverError(`SELECT * FROM compile_jobs WHERE id = $1::uuid`, ['job-does-not-exist']);
      const res = render(err, { params: { job_id: 'job-does-not-exist' } });
      expect(res.statusCode).toBe(422);
      expect(res.body.error.details[0]).toMatchObject({ type: 'invalid_format', loc: ['path', 'job_id'] });
      expect(JSON.stringify(res.body)).not.toContain('job-does-not-exist');
    });

    it('keeps a division by zero (our bug, not the input) a 500', async () => {
      const err = await driverError(`SELECT 1 / $1::int`, [0]);
      expect(render(err, {}).statusCode).toBe(500);
    });
  });
});
