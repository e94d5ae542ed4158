import request from 'supertest';
import { TenantScope } from 'src/common/db/tenant-scope';
import { SupportService } from 'src/modules/support/support.service';
import { createTestApp, TestApp } from '../app-factory';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEBHOOKS = { SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' };

type Res = request.Response;

const customer = (subject: string, session: string, content: string) => ({
  subject_id: subject,
  session_id: session,
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content }] },
});
const agent = (subject: string, session: string, content: string) => ({
  subject_id: subject,
  session_id: session,
  source: 'agent',
  type: 'conversation',
  payload: { messages: [{ role: 'assistant', content }] },
});

function expect422(res: Res, loc: string[]) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc);
}

/** Ingestion marks a subject's health for recomputation shortly after the commit; run it now. */
const healthSettled = (t: TestApp) => t.app.get(SupportService).drainHealthRefresh();

async function healthEvents(t: TestApp, tenant: string | null = null) {
  const rows: { event: string; tenant_id: string | null; payload: { event: string; timestamp: string; data: Record<string, unknown> } }[] = await t.ds.query(
    // generated_at, not created_at: an event row's created_at is its transaction's start, and
    // concurrent transactions take the cache lock (and compute) in another order.
    `SELECT event, tenant_id, payload FROM webhook_events WHERE event LIKE 'subject.health_%' AND coalesce(tenant_id, '') = $1
     ORDER BY payload->'data'->>'generated_at', created_at`,
    [tenant ?? ''],
  );
  return rows;
}

describe('support scenario: a customer with several sessions', () => {
  let t: TestApp;
  const subject = 'acme/juno';
  const path = `/v1/subjects/${encodeURIComponent(subject)}`;
  // Whole seconds, so ISO strings are predictable.
  const T = Math.floor(Date.now() / 1000) * 1000;
  const at = (ms: number) => new Date(T + ms).toISOString();
  const ids: Record<string, string> = {};
  const resolutionIds: Record<string, string> = {};

  const backdateEpisode = (id: string, ms: number) => t.ds.query(`UPDATE episodes SET created_at = $1 WHERE id = $2`, [at(ms), id]);
  const backdateResolution = (session: string, created: number, updated: number, resolved: number | null) =>
    t.ds.query(`UPDATE resolutions SET created_at = $1, updated_at = $2, resolved_at = $3 WHERE subject_id = $4 AND session_id = $5`, [
      at(created),
      at(updated),
      resolved === null ? null : at(resolved),
      subject,
      session,
    ]);
  const resolve = async (session: string, status: string, summary?: string) => {
    const res = await request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: session, status, resolution_summary: summary }).expect(200);
    resolutionIds[session] = res.body.id;
    return res;
  };

  beforeAll(async () => {
    // A gathering window far longer than three ingests take even on a loaded machine: with the
    // 200 ms default a slow run flushed between them and the coalescing test saw an early event.
    t = await createTestApp({ ...WEBHOOKS, SERVICE_HEALTH_REFRESH_DELAY_MS: '1500' });
  });
  afterAll(() => t.close());

  it('stays healthy, with no event, while the history is written', async () => {
    let res = await request(t.http)
      .post('/v1/episodes/batch')
      .send({
        episodes: [
          customer(subject, 'sess-1', 'I cannot log in to the dashboard: login fails with error 403'),
          agent(subject, 'sess-1', 'Please clear your browser cache and sign in again.'),
        ],
      })
      .expect(201);
    [ids.s1c, ids.s1a] = res.body.episodes.map((e: { id: string }) => e.id);
    await resolve('sess-1', 'resolved', 'Cleared the browser cache; login works');
    res = await request(t.http)
      .post('/v1/episodes/batch')
      .send({
        episodes: [customer(subject, 'sess-2', 'Dashboard login fails again with error 403'), agent(subject, 'sess-2', 'We reset your session tokens, please try now.')],
      })
      .expect(201);
    [ids.s2c, ids.s2a] = res.body.episodes.map((e: { id: string }) => e.id);
    await resolve('sess-2', 'resolved', 'Reset session tokens');
    res = await request(t.http).post('/v1/episodes').send(customer(subject, 'sess-3', 'The invoice export to CSV is broken for March')).expect(201);
    ids.s3c = res.body.id;
    await resolve('sess-3', 'open');
    // The refresh each write schedules must run now, not halfway through the backdating below
    // (under load it did, and cached a score of neither the before nor the after).
    await healthSettled(t);

    const cache = await t.ds.query(`SELECT state, score FROM health_cache WHERE subject_id = $1`, [subject]);
    expect(cache).toEqual([{ state: 'healthy', score: 80 }]);
    expect(await healthEvents(t)).toEqual([]);

    // The sessions happened days ago: one resolved fast, one breached, one open and idle.
    await backdateEpisode(ids.s1c, -10 * DAY);
    await backdateEpisode(ids.s1a, -10 * DAY + 2 * 60_000);
    await backdateResolution('sess-1', -10 * DAY, -10 * DAY + HOUR, -10 * DAY + HOUR);
    await backdateEpisode(ids.s2c, -5 * DAY);
    await backdateEpisode(ids.s2a, -5 * DAY + 30 * 60_000);
    await backdateResolution('sess-2', -5 * DAY, -5 * DAY + 30 * HOUR, -5 * DAY + 30 * HOUR);
    await backdateEpisode(ids.s3c, -4 * DAY);
    await backdateResolution('sess-3', -4 * DAY, -4 * DAY, null);
  });

  it('scores the history 50 (watch) and emits one subject.health_degraded on the read that notices it', async () => {
    const res = await request(t.http).get(path + '/health').expect(200);
    const factors = [
      { signal: 'unresolved_issues', impact: -15, detail: '1 open session(s)' },
      { signal: 'idle_open_issue', impact: -10, detail: '1 open session(s) idle for more than 48h: sess-3' },
      { signal: 'sla_resolution_breaches', impact: -10, detail: '2 session(s) beyond the 24h resolution target: sess-2, sess-3' },
      { signal: 'slow_first_response', impact: -10, detail: '2 session(s) waited more than 5 min for a first response: sess-2, sess-3' },
      { signal: 'repeated_issues', impact: -10, detail: 'same issue raised in 2 sessions: sess-1, sess-2' },
      { signal: 'recent_resolution', impact: 5, detail: '1 session(s) resolved in the last 7 days' },
    ];
    expect(res.body).toEqual({ subject_id: subject, score: 50, state: 'watch', factors, generated_at: expect.any(String) });

    const events = await healthEvents(t);
    expect(events).toHaveLength(1);
    expect(events[0].event).toBe('subject.health_degraded');
    expect(events[0].payload).toEqual({
      event: 'subject.health_degraded',
      timestamp: expect.any(String),
      data: { subject_id: subject, previous_state: 'healthy', current_state: 'watch', score: 50, previous_score: 80, factors, generated_at: res.body.generated_at, tenant_id: null },
    });
  });

  it('emits nothing more when the unchanged state is read again', async () => {
    const res = await request(t.http).get(path + '/health').expect(200);
    expect(res.body).toMatchObject({ score: 50, state: 'watch' });
    expect(await healthEvents(t)).toHaveLength(1);
  });

  it('reports SLA figures per session and in aggregate with the default thresholds', async () => {
    const res = await request(t.http).get(path + '/sla').expect(200);
    const open = res.body.sessions[2].open_duration_seconds;
    expect(open).toBeGreaterThanOrEqual(4 * 86400);
    expect(open).toBeLessThan(4 * 86400 + 600);
    expect(res.body).toEqual({
      subject_id: subject,
      total_sessions: 3,
      resolved_sessions: 2,
      open_sessions: 1,
      avg_first_response_seconds: 960,
      avg_resolution_seconds: 55800,
      first_response_breach_count: 2,
      resolution_breach_count: 2,
      sessions: [
        {
          session_id: 'sess-1',
          status: 'resolved',
          first_message_at: at(-10 * DAY),
          first_response_at: at(-10 * DAY + 120_000),
          resolved_at: at(-10 * DAY + HOUR),
          first_response_seconds: 120,
          resolution_seconds: 3600,
          open_duration_seconds: null,
          first_response_breached: false,
          resolution_breached: false,
        },
        {
          session_id: 'sess-2',
          status: 'resolved',
          first_message_at: at(-5 * DAY),
          first_response_at: at(-5 * DAY + 1_800_000),
          resolved_at: at(-5 * DAY + 30 * HOUR),
          first_response_seconds: 1800,
          resolution_seconds: 108000,
          open_duration_seconds: null,
          first_response_breached: true,
          resolution_breached: true,
        },
        {
          session_id: 'sess-3',
          status: 'open',
          first_message_at: at(-4 * DAY),
          first_response_at: null,
          resolved_at: null,
          first_response_seconds: null,
          resolution_seconds: null,
          open_duration_seconds: open,
          first_response_breached: true,
          resolution_breached: true,
        },
      ],
    });
  });

  it('applies the SLA thresholds given in the query, including 0', async () => {
    let res = await request(t.http).get(path + '/sla?first_response_threshold_minutes=60&resolution_threshold_hours=48').expect(200);
    expect(res.body.sessions.map((s: { first_response_breached: boolean }) => s.first_response_breached)).toEqual([false, false, true]);
    expect(res.body.sessions.map((s: { resolution_breached: boolean }) => s.resolution_breached)).toEqual([false, false, true]);
    expect(res.body).toMatchObject({ first_response_breach_count: 1, resolution_breach_count: 1 });
    res = await request(t.http).get(path + '/sla?first_response_threshold_minutes=0&resolution_threshold_hours=0.5').expect(200);
    expect(res.body).toMatchObject({ first_response_breach_count: 3, resolution_breach_count: 3 });
    res = await request(t.http).get(path + '/sla?first_response_threshold_minutes=2&resolution_threshold_hours=1').expect(200);
    expect(res.body.sessions[0]).toMatchObject({ first_response_breached: false, resolution_breached: false });
  });

  it('drops to at_risk when an urgent repeat of the login problem arrives (noticed after ingestion)', async () => {
    const res = await request(t.http)
      .post('/v1/episodes')
      .send(customer(subject, 'sess-4', 'URGENT: dashboard login fails with error 403 again, production is down'))
      .expect(201);
    ids.s4c = res.body.id;
    ids.s4at = new Date(res.body.created_at).toISOString();
    await healthSettled(t);

    const events = await healthEvents(t);
    expect(events).toHaveLength(2);
    expect(events[1].payload.data).toMatchObject({ subject_id: subject, previous_state: 'watch', current_state: 'at_risk', score: 5, previous_score: 50 });
    expect(events[1].event).toBe('subject.health_degraded');

    const health = await request(t.http).get(path + '/health').expect(200);
    expect(health.body).toMatchObject({ score: 5, state: 'at_risk' });
    expect(health.body.factors.map((f: { signal: string; impact: number }) => [f.signal, f.impact])).toEqual([
      ['unresolved_issues', -30],
      ['repeated_issues', -20],
      ['escalations', -20],
      ['idle_open_issue', -10],
      ['sla_resolution_breaches', -10],
      ['slow_first_response', -10],
      ['recent_resolution', 5],
    ]);
    expect(await healthEvents(t)).toHaveLength(2);
  });

  it('answers ingestion before recomputing health, then notices the change without a read', async () => {
    const sub = 'coalesce/kim';
    // Three ingests in a row: the subject is marked once and recomputed once, after the answers.
    for (const text of ['urgent: invoices are wrong', 'urgent: still wrong', 'urgent: production is down']) {
      await request(t.http).post('/v1/episodes').send(customer(sub, 'k-1', text)).expect(201);
    }
    const before = (await healthEvents(t)).filter((e) => e.payload.data.subject_id === sub);
    expect(before).toEqual([]);
    await healthSettled(t);
    const after = (await healthEvents(t)).filter((e) => e.payload.data.subject_id === sub);
    // 100 - 15 (open) - 40 (three urgent messages, capped) = 45: one event, straight to watch.
    expect(after.map((e) => [e.event, e.payload.data.previous_state, e.payload.data.current_state, e.payload.data.score])).toEqual([
      ['subject.health_degraded', 'healthy', 'watch', 45],
    ]);
    expect(await t.ds.query(`SELECT state, score FROM health_cache WHERE subject_id = $1`, [sub])).toEqual([{ state: 'watch', score: 45 }]);
    // Left alone, the delayed flush does the same work: a new session turns the subject at_risk.
    await request(t.http).post('/v1/episodes').send(customer(sub, 'k-2', 'urgent: refund missing')).expect(201);
    for (let i = 0; i < 500 && (await t.ds.query(`SELECT score FROM health_cache WHERE subject_id = $1`, [sub]))[0].score !== 30; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await t.ds.query(`SELECT state, score FROM health_cache WHERE subject_id = $1`, [sub])).toEqual([{ state: 'at_risk', score: 30 }]);
    await request(t.http).delete(`/v1/subjects/${encodeURIComponent(sub)}`).expect(200);
    await t.ds.query(`DELETE FROM webhook_events WHERE payload->'data'->>'subject_id' = $1`, [sub]);
  });

  it('builds the handoff pack and its notes for the escalated session', async () => {
    const facts = [
      ['00000000-0000-4000-8000-000000000001', 'profile_fact', 'My name is Juno Marsh', -20 * DAY],
      ['00000000-0000-4000-8000-000000000002', 'profile_fact', 'I am on the Pro plan', -9 * DAY],
      ['00000000-0000-4000-8000-000000000003', 'procedure', 'To fix a 403 on login: clear the browser cache, then reset the session tokens', -5 * DAY],
      ['00000000-0000-4000-8000-000000000004', 'profile_fact', 'I live in Oslo', -30 * DAY],
    ] as const;
    for (const [id, kind, content, created] of facts) {
      await t.ds.query(`INSERT INTO memories (id, subject_id, kind, content, summary, created_at, updated_at, valid_from) VALUES ($1, $2, $3, $4, $4, $5, $5, $5)`, [
        id,
        subject,
        kind,
        content,
        at(created),
      ]);
    }
    // Superseded and expired facts are not key facts.
    await t.ds.query(`UPDATE memories SET status = 'superseded', valid_to = $1 WHERE id = $2`, [at(-DAY), facts[3][0]]);

    const body = { subject_id: subject, session_id: 'sess-4', reason: 'customer threatens to cancel' };
    const res = await request(t.http).post('/v1/handoff').send(body).expect(200);
    // Each message is said once: sess-1 and sess-2 by their resolution summaries, sess-3 by its
    // opening message, sess-4 as the active issue; so Recent Context has nothing left to add.
    const notes = [
      `# Handoff Brief — ${subject}`,
      '',
      '🔴 **Health: AT_RISK** (score 5/100) — unresolved_issues -30, repeated_issues -20, escalations -20',
      '**Session:** `sess-4` (unknown) · **Reason:** customer threatens to cancel',
      '',
      '## Active Issue',
      'URGENT: dashboard login fails with error 403 again, production is down',
      '',
      '## Open Issues',
      `- \`sess-3\` (open, since ${at(-4 * DAY).slice(0, 10)}) — The invoice export to CSV is broken for March`,
      `- \`sess-4\` (since ${ids.s4at.slice(0, 10)}) — this session`,
      '',
      '## Previously Resolved',
      `- \`sess-2\` (${at(-5 * DAY + 30 * HOUR).slice(0, 10)}) — Reset session tokens`,
      `- \`sess-1\` (${at(-10 * DAY + HOUR).slice(0, 10)}) — Cleared the browser cache; login works`,
      '',
      '## Attempted Steps',
      '- procedure: To fix a 403 on login: clear the browser cache, then reset the session tokens',
      '',
      '## Key Facts',
      '- I am on the Pro plan',
      '- My name is Juno Marsh',
    ].join('\n');
    expect(res.body.handoff_notes).toBe(notes);
    expect(res.body).toMatchObject({
      subject_id: subject,
      session_id: 'sess-4',
      reason: 'customer threatens to cancel',
      customer_summary: `${subject}: 4 support session(s), 2 open, 2 resolved; health 5/100 (at_risk).`,
      active_issue: 'URGENT: dashboard login fails with error 403 again, production is down',
      attempted_steps: ['procedure: To fix a 403 on login: clear the browser cache, then reset the session tokens'],
      key_facts: ['I am on the Pro plan', 'My name is Juno Marsh'],
      resolution_history: [
        { session_id: 'sess-2', status: 'resolved', summary: 'Reset session tokens', resolved_at: at(-5 * DAY + 30 * HOUR) },
        { session_id: 'sess-3', status: 'open', summary: '', resolved_at: null },
        { session_id: 'sess-1', status: 'resolved', summary: 'Cleared the browser cache; login works', resolved_at: at(-10 * DAY + HOUR) },
      ],
      health_score: 5,
      health_state: 'at_risk',
      provenance: {
        fact_ids: [facts[1][0], facts[0][0]],
        episode_ids: [ids.s4c],
        resolution_ids: [resolutionIds['sess-2'], resolutionIds['sess-3'], resolutionIds['sess-1']],
        context_episode_ids: [ids.s1c, ids.s1a, ids.s2c, ids.s2a, ids.s3c, ids.s4c],
      },
    });
    expect(res.body.health_factors).toHaveLength(3);
    expect(res.body.recent_context).toHaveLength(6);
    expect(res.body.token_estimate).toBeGreaterThan(0);
    expect(res.body.token_estimate).toBeLessThanOrEqual(4000);
    expect(Number.isNaN(Date.parse(res.body.generated_at))).toBe(false);

    const again = await request(t.http).post('/v1/handoff').send(body).expect(200);
    expect(again.body.handoff_notes).toBe(res.body.handoff_notes);
    expect(again.body.active_issue).toBe(res.body.active_issue);
    expect(await healthEvents(t)).toHaveLength(2);
  });

  it('keeps handoff notes within every max_tokens budget', async () => {
    for (const max of [1, 5, 23, 40, 120, 16000]) {
      const res = await request(t.http).post('/v1/handoff').send({ subject_id: subject, session_id: 'sess-4', max_tokens: max }).expect(200);
      expect(res.body.token_estimate).toBeLessThanOrEqual(max);
      expect(res.body.reason).toBe('escalation');
    }
  });

  it('stays at_risk when sess-4 is answered and resolved, and improves to watch once sess-3 is resolved', async () => {
    await request(t.http).post('/v1/episodes').send(agent(subject, 'sess-4', 'Tokens reset and the 403 is gone, sorry for the trouble.')).expect(201);
    await resolve('sess-4', 'resolved', 'Session tokens reset');
    let health = await request(t.http).get(path + '/health').expect(200);
    expect(health.body).toMatchObject({ score: 20, state: 'at_risk' });
    expect(await healthEvents(t)).toHaveLength(2);

    await resolve('sess-3', 'resolved', 'CSV export fixed in release 2.3');
    const events = await healthEvents(t);
    expect(events.map((e) => [e.event, e.payload.data.previous_state, e.payload.data.current_state, e.payload.data.previous_score, e.payload.data.score])).toEqual([
      ['subject.health_degraded', 'healthy', 'watch', 80, 50],
      ['subject.health_degraded', 'watch', 'at_risk', 50, 5],
      ['subject.health_improved', 'at_risk', 'watch', 20, 55],
    ]);
    health = await request(t.http).get(path + '/health').expect(200);
    expect(health.body.score).toBe(55);
    expect(health.body.factors.map((f: { signal: string; impact: number }) => [f.signal, f.impact])).toEqual([
      ['repeated_issues', -20],
      ['escalations', -20],
      ['sla_resolution_breaches', -10],
      ['slow_first_response', -10],
      ['recent_resolution', 5],
      ['high_resolution_rate', 10],
    ]);
    expect(events[2].payload.data.factors).toEqual(health.body.factors);
    expect(await healthEvents(t)).toHaveLength(3);
  });

  it('lists the resolutions newest update first, filtered by status', async () => {
    const res = await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}`).expect(200);
    expect(res.body.map((r: { session_id: string }) => r.session_id)).toEqual(['sess-3', 'sess-4', 'sess-2', 'sess-1']);
    const open = await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}&status=open`).expect(200);
    expect(open.body).toEqual([]);
    const resolved = await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}&status=resolved`).expect(200);
    expect(resolved.body).toHaveLength(4);
  });
});

describe('resolutions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(WEBHOOKS);
  });
  afterAll(() => t.close());

  it('creates a record with the defaults and returns every field', async () => {
    const res = await request(t.http).post('/v1/resolutions').send({ subject_id: 'r-1', session_id: 'chat-1' }).expect(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subject_id: 'r-1',
      session_id: 'chat-1',
      status: 'open',
      resolution_summary: null,
      resolved_at: null,
      metadata: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('keeps the id across upserts, sets resolved_at once and clears it when reopened', async () => {
    const first = await request(t.http).post('/v1/resolutions').send({ subject_id: 'r-2', session_id: 'chat-1', metadata: { channel: 'web' } }).expect(200);
    const resolved = await request(t.http)
      .post('/v1/resolutions')
      .send({ subject_id: 'r-2', session_id: 'chat-1', status: 'resolved', resolution_summary: 'Refunded', metadata: { agent: 'kim' } })
      .expect(200);
    expect(resolved.body).toMatchObject({ id: first.body.id, status: 'resolved', resolution_summary: 'Refunded', metadata: { agent: 'kim' }, created_at: first.body.created_at });
    expect(resolved.body.resolved_at).toEqual(expect.any(String));
    expect(Date.parse(resolved.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));

    const again = await request(t.http).post('/v1/resolutions').send({ subject_id: 'r-2', session_id: 'chat-1', status: 'resolved', resolution_summary: 'Refunded twice' }).expect(200);
    expect(again.body).toMatchObject({ id: first.body.id, resolved_at: resolved.body.resolved_at, resolution_summary: 'Refunded twice', metadata: {} });

    const reopened = await request(t.http).post('/v1/resolutions').send({ subject_id: 'r-2', session_id: 'chat-1', status: 'unresolved' }).expect(200);
    expect(reopened.body).toMatchObject({ id: first.body.id, status: 'unresolved', resolved_at: null, resolution_summary: null });
    const rows = await t.ds.query(`SELECT count(*)::int AS n FROM resolutions WHERE subject_id = 'r-2'`);
    expect(rows[0].n).toBe(1);
  });

  it('leaves one row when the same pair is upserted concurrently, and answers 200 to all', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(t.http)
          .post('/v1/resolutions')
          .send({ subject_id: 'r-race', session_id: 'chat-1', status: i % 2 ? 'resolved' : 'open' }),
      ),
    );
    for (const r of results) expect(r.status).toBe(200);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const rows = await t.ds.query(`SELECT count(*)::int AS n FROM resolutions WHERE subject_id = 'r-race'`);
    expect(rows[0].n).toBe(1);
  });

  it('emits each health transition once when sessions of one subject are resolved concurrently', async () => {
    const subject = 'r-race-health';
    // Four urgent open sessions about different things: 100 - 45 - 40 = 15, at_risk.
    const issues = ['invoice wrong', 'password reset broken', 'export crashes', 'refund missing'];
    for (let i = 1; i <= 4; i++) {
      await request(t.http).post('/v1/episodes').send(customer(subject, `s${i}`, `urgent: ${issues[i - 1]}`)).expect(201);
      await healthSettled(t);
    }
    expect((await healthEvents(t)).filter((e) => e.payload.data.subject_id === subject).map((e) => e.payload.data.current_state)).toEqual(['watch', 'at_risk']);
    await Promise.all(
      [1, 2, 3, 4].map((i) => request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: `s${i}`, status: 'resolved' }).expect(200)),
    );
    // All resolved: escalations -40, recent +5, rate +10 -> 75, healthy; concurrent reads notice nothing more.
    await Promise.all([1, 2, 3].map(() => request(t.http).get(`/v1/subjects/${subject}/health`).expect(200)));
    const health = await request(t.http).get(`/v1/subjects/${subject}/health`).expect(200);
    expect(health.body).toMatchObject({ score: 75, state: 'healthy' });
    // Whatever the commit order, each upsert computes under the cache lock with every earlier
    // commit visible, so the open count goes 3, 2, 1, 0: scores 20, 35, 50, 75.
    const data = (await healthEvents(t)).filter((e) => e.payload.data.subject_id === subject).map((e) => e.payload.data);
    expect(data.map((d) => [d.previous_state, d.current_state, d.score])).toEqual([
      ['healthy', 'watch', 65],
      ['watch', 'at_risk', 30],
      ['at_risk', 'watch', 50],
      ['watch', 'healthy', 75],
    ]);
  });

  it('caches the first health of a subject once when its first records are written concurrently', async () => {
    const subject = 'r-first-race';
    // No cache row yet: every transaction races to insert it; the losers lock the winner's row
    // and compute again. Open sessions 1..4 score 85, 70, 55, 55: one event, healthy -> watch.
    await Promise.all(
      [1, 2, 3, 4].map((i) => request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: `s${i}`, status: 'unresolved' }).expect(200)),
    );
    const events = (await healthEvents(t)).filter((e) => e.payload.data.subject_id === subject);
    expect(events.map((e) => [e.payload.data.previous_state, e.payload.data.current_state, e.payload.data.score])).toEqual([['healthy', 'watch', 55]]);
    expect(await t.ds.query(`SELECT state, score FROM health_cache WHERE subject_id = $1`, [subject])).toEqual([{ state: 'watch', score: 55 }]);
  });

  it('emits one event when the same change is read concurrently', async () => {
    const subject = 'r-read-race';
    await request(t.http).post('/v1/episodes').send(customer(subject, 'a', 'invoice missing')).expect(201);
    await request(t.http).post('/v1/episodes').send(customer(subject, 'b', 'password reset link expired')).expect(201);
    // Make both sessions idle and breached: 100 - 30 - 20 - 10 - 10 = 30.
    await t.ds.query(`UPDATE episodes SET created_at = now() - interval '3 days' WHERE subject_id = $1`, [subject]);
    const reads = await Promise.all(Array.from({ length: 6 }, () => request(t.http).get(`/v1/subjects/${subject}/health`)));
    for (const r of reads) expect(r.body).toMatchObject({ score: 30, state: 'at_risk' });
    const events = (await healthEvents(t)).filter((e) => e.payload.data.subject_id === subject);
    expect(events.map((e) => [e.event, e.payload.data.previous_state, e.payload.data.current_state])).toEqual([['subject.health_degraded', 'healthy', 'at_risk']]);
  });

  it('refuses bad input with 422 naming the field', async () => {
    const post = (body: unknown) => request(t.http).post('/v1/resolutions').send(body as object);
    expect422(await post({ session_id: 's' }), ['body', 'subject_id']);
    expect422(await post({ subject_id: 'x' }), ['body', 'session_id']);
    expect422(await post({ subject_id: '', session_id: 's' }), ['body', 'subject_id']);
    expect422(await post({ subject_id: 'x', session_id: 's'.repeat(257) }), ['body', 'session_id']);
    expect422(await post({ subject_id: 'x', session_id: 's', status: 'closed' }), ['body', 'status']);
    expect422(await post({ subject_id: 'x', session_id: 's', resolution_summary: 'y'.repeat(2001) }), ['body', 'resolution_summary']);
    expect422(await post({ subject_id: 'x', session_id: 's', resolution_summary: 5 }), ['body', 'resolution_summary']);
    expect422(await post({ subject_id: 'x', session_id: 's', metadata: [1] }), ['body', 'metadata']);
    expect422(await request(t.http).get('/v1/resolutions?subject_id=x&status=closed'), ['query', 'status']);
    expect422(await request(t.http).get('/v1/resolutions'), ['query', 'subject_id']);
    await post({ subject_id: 'x', session_id: 's', resolution_summary: 'y'.repeat(2000) }).expect(200);
    const rows = await t.ds.query(`SELECT count(*)::int AS n FROM resolutions WHERE subject_id = 'x'`);
    expect(rows[0].n).toBe(1);
  });

  it('answers an unknown subject with an empty array', async () => {
    const res = await request(t.http).get('/v1/resolutions?subject_id=nobody').expect(200);
    expect(res.body).toEqual([]);
  });
});

describe('health, SLA and handoff of unknown subjects and odd ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(WEBHOOKS);
  });
  afterAll(() => t.close());

  it('scores an unknown subject 100 healthy without caching or emitting anything', async () => {
    const res = await request(t.http).get('/v1/subjects/nobody/health').expect(200);
    expect(res.body).toEqual({ subject_id: 'nobody', score: 100, state: 'healthy', factors: [], generated_at: expect.any(String) });
    expect(await t.ds.query(`SELECT * FROM health_cache`)).toEqual([]);
    expect(await healthEvents(t)).toEqual([]);
  });

  it('gives an unknown subject an SLA with zero sessions', async () => {
    const res = await request(t.http).get('/v1/subjects/nobody/sla').expect(200);
    expect(res.body).toEqual({
      subject_id: 'nobody',
      total_sessions: 0,
      resolved_sessions: 0,
      open_sessions: 0,
      avg_first_response_seconds: 0,
      avg_resolution_seconds: 0,
      first_response_breach_count: 0,
      resolution_breach_count: 0,
      sessions: [],
    });
  });

  it('counts an open session as open and a session without a resolution record (unknown) in the total only', async () => {
    const subject = 'sla-counts';
    await request(t.http)
      .post('/v1/episodes/batch')
      .send({ episodes: [customer(subject, 'opened', 'The export button does nothing'), customer(subject, 'untracked', 'Where do I change my email?')] })
      .expect(201);
    await request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: 'opened', status: 'open' }).expect(200);
    const res = await request(t.http).get(`/v1/subjects/${subject}/sla`).expect(200);
    expect(res.body.sessions.map((s: { session_id: string; status: string }) => [s.session_id, s.status]).sort()).toEqual([
      ['opened', 'open'],
      ['untracked', 'unknown'],
    ]);
    expect(res.body).toMatchObject({ total_sessions: 2, open_sessions: 1, resolved_sessions: 0 });
  });

  it('gives an unknown subject or session a handoff pack that says so', async () => {
    const res = await request(t.http).post('/v1/handoff').send({ subject_id: 'nobody', session_id: 'none' }).expect(200);
    expect(res.body).toMatchObject({
      active_issue: 'No messages recorded for session none.',
      health_score: 100,
      health_state: 'healthy',
      health_factors: [],
      key_facts: [],
      resolution_history: [],
      provenance: { fact_ids: [], episode_ids: [], resolution_ids: [], context_episode_ids: [] },
    });
    expect(res.body.handoff_notes.startsWith('# Handoff Brief — nobody\n\n🟢 **Health: HEALTHY** (score 100/100)')).toBe(true);
  });

  it('routes subject ids containing / (sent as %2F) and other reserved characters', async () => {
    for (const subject of ['org/team/user 1', 'a?b#c', 'ünï/çødé']) {
      await request(t.http).post('/v1/episodes').send(customer(subject, 'chat', 'cannot log in')).expect(201);
      const health = await request(t.http).get(`/v1/subjects/${encodeURIComponent(subject)}/health`).expect(200);
      expect(health.body).toMatchObject({ subject_id: subject, score: 85, state: 'healthy' });
      const sla = await request(t.http).get(`/v1/subjects/${encodeURIComponent(subject)}/sla`).expect(200);
      expect(sla.body).toMatchObject({ subject_id: subject, total_sessions: 1, open_sessions: 0, sessions: [{ session_id: 'chat', status: 'unknown' }] });
    }
  });

  it('refuses bad SLA thresholds with 422 naming the query field, never a 5xx', async () => {
    const bad = ['NaN', 'Infinity', '-Infinity', '-1', '-0.5', 'abc', '', '1e7', '1000001', '0x10', '1e999', '5min'];
    for (const value of bad) {
      for (const field of ['first_response_threshold_minutes', 'resolution_threshold_hours']) {
        const res = await request(t.http).get(`/v1/subjects/s/sla?${field}=${encodeURIComponent(value)}`);
        expect422(res, ['query', field]);
      }
    }
    expect422(await request(t.http).get('/v1/subjects/s/sla?resolution_threshold_hours=1&resolution_threshold_hours=2'), ['query', 'resolution_threshold_hours']);
    for (const value of ['0', '0.0', '2.5', '1e6', '1000000', '.5']) {
      await request(t.http).get(`/v1/subjects/s/sla?first_response_threshold_minutes=${value}&resolution_threshold_hours=${value}`).expect(200);
    }
  });

  it('refuses a subject id longer than 256 characters in the path', async () => {
    expect422(await request(t.http).get(`/v1/subjects/${'x'.repeat(257)}/health`), ['path', 'subject_id']);
  });

  it('refuses bad handoff requests with 422 naming the field', async () => {
    const post = (body: Record<string, unknown>) => request(t.http).post('/v1/handoff').send(body);
    expect422(await post({ subject_id: 's' }), ['body', 'session_id']);
    expect422(await post({ session_id: 's' }), ['body', 'subject_id']);
    expect422(await post({ subject_id: 's', session_id: 'x'.repeat(257) }), ['body', 'session_id']);
    expect422(await post({ subject_id: 's', session_id: 'x', reason: 'r'.repeat(257) }), ['body', 'reason']);
    for (const max of [0, -1, 16001, 1.5, '100']) expect422(await post({ subject_id: 's', session_id: 'x', max_tokens: max }), ['body', 'max_tokens']);
    const ok = await post({ subject_id: 's', session_id: 'x', reason: 'r'.repeat(256), max_tokens: 16000 }).expect(200);
    expect(ok.body.token_estimate).toBeLessThanOrEqual(16000);
  });
});

describe('support data of two tenants', () => {
  let t: TestApp;
  const A = { 'X-Tenant-ID': 'tenant-a' };
  const B = { 'X-Tenant-ID': 'tenant-b' };
  const subject = 'shared/customer';
  const path = `/v1/subjects/${encodeURIComponent(subject)}`;

  beforeAll(async () => {
    t = await createTestApp({ ...WEBHOOKS, SERVICE_REQUIRE_TENANT: 'true' });
    await request(t.http).post('/v1/episodes').set(A).send(customer(subject, 'chat-1', 'URGENT: production is down')).expect(201);
    await healthSettled(t);
    await request(t.http).post('/v1/episodes').set(A).send(customer(subject, 'chat-2', 'Still broken, this is critical')).expect(201);
    await healthSettled(t);
    await request(t.http).post('/v1/resolutions').set(A).send({ subject_id: subject, session_id: 'chat-1', status: 'unresolved', resolution_summary: 'secret of A' }).expect(200);
  });
  afterAll(() => t.close());

  it('requires the tenant header on every support route', async () => {
    await request(t.http).get(`${path}/health`).expect(400);
    await request(t.http).get(`${path}/sla`).expect(400);
    await request(t.http).get(`${path}/health/history`).expect(400);
    await request(t.http).get(`/v1/resolutions?subject_id=x`).expect(400);
    await request(t.http).post('/v1/resolutions').send({ subject_id: 'x', session_id: 'y' }).expect(400);
    await request(t.http).post('/v1/handoff').send({ subject_id: 'x', session_id: 'y' }).expect(400);
  });

  it("never shows one tenant's resolutions, health, SLA or handoff to another", async () => {
    const a = await request(t.http).get(`${path}/health`).set(A).expect(200);
    expect(a.body).toMatchObject({ score: 30, state: 'at_risk' });

    expect((await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}`).set(B).expect(200)).body).toEqual([]);
    expect((await request(t.http).get(`${path}/health`).set(B).expect(200)).body).toMatchObject({ score: 100, state: 'healthy', factors: [] });
    expect((await request(t.http).get(`${path}/sla`).set(B).expect(200)).body).toMatchObject({ total_sessions: 0, sessions: [] });
    const handoff = await request(t.http).post('/v1/handoff').set(B).send({ subject_id: subject, session_id: 'chat-1' }).expect(200);
    expect(handoff.body).toMatchObject({ active_issue: 'No messages recorded for session chat-1.', resolution_history: [], recent_context: [], health_state: 'healthy' });
    expect(handoff.body.handoff_notes).not.toContain('secret of A');
    expect(handoff.body.handoff_notes).not.toContain('production');
  });

  it("keeps one record per tenant for the same pair and never updates the other tenant's", async () => {
    const b = await request(t.http).post('/v1/resolutions').set(B).send({ subject_id: subject, session_id: 'chat-1', status: 'resolved' }).expect(200);
    const listA = await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}`).set(A).expect(200);
    expect(listA.body).toHaveLength(1);
    expect(listA.body[0]).toMatchObject({ status: 'unresolved', resolution_summary: 'secret of A' });
    expect(listA.body[0].id).not.toBe(b.body.id);
    const rows = await t.ds.query(`SELECT tenant_id, status FROM resolutions ORDER BY tenant_id`);
    expect(rows).toEqual([
      { tenant_id: 'tenant-a', status: 'unresolved' },
      { tenant_id: 'tenant-b', status: 'resolved' },
    ]);
  });

  it('caches health and stamps health events per tenant', async () => {
    // B's only session is resolved and has no episodes: 100 + 5, clamped.
    expect((await request(t.http).get(`${path}/health`).set(B).expect(200)).body).toMatchObject({ score: 100, state: 'healthy' });
    const cache = await t.ds.query(`SELECT tenant_id, state, score FROM health_cache ORDER BY tenant_id`);
    expect(cache).toEqual([
      { tenant_id: 'tenant-a', state: 'at_risk', score: 30 },
      { tenant_id: 'tenant-b', state: 'healthy', score: 100 },
    ]);
    expect((await healthEvents(t, 'tenant-a')).map((e) => e.payload.data.current_state)).toEqual(['watch', 'at_risk']);
    expect(await healthEvents(t, 'tenant-b')).toEqual([]);
  });

  it("lists a tenant's open session ids for other modules", async () => {
    const support = t.app.get(SupportService);
    await request(t.http).post('/v1/resolutions').set(A).send({ subject_id: subject, session_id: 'chat-3', status: 'resolved' }).expect(200);
    expect(await support.openSessionIds(t.ds.manager, TenantScope.of('tenant-a'), subject)).toEqual(['chat-1', 'chat-2']);
    expect(await support.openSessionIds(t.ds.manager, TenantScope.of('tenant-b'), subject)).toEqual([]);
  });

  it("deletes one tenant's resolutions, cached health and health history of a subject, and nothing else", async () => {
    const support = t.app.get(SupportService);
    const history = (tenant: Record<string, string>) => request(t.http).get(`${path}/health/history`).set(tenant).expect(200);
    // A's three recomputed scores (watch, then at_risk twice over); B's one.
    expect((await history(A)).body.points.map((p: { state: string }) => p.state)).toEqual(['watch', 'at_risk', 'at_risk']);
    const deleted = await t.ds.transaction((em) => support.deleteSubject(em, TenantScope.of('tenant-a'), subject));
    expect(deleted).toEqual({ resolutions_deleted: 2, health_cache_deleted: 1, health_history_deleted: 3 });
    expect(await t.ds.query(`SELECT tenant_id FROM resolutions`)).toEqual([{ tenant_id: 'tenant-b' }]);
    expect(await t.ds.query(`SELECT tenant_id FROM health_cache`)).toEqual([{ tenant_id: 'tenant-b' }]);
    expect((await history(A)).body.points).toEqual([]);
    expect((await history(B)).body.points).toMatchObject([{ score: 100, state: 'healthy' }]);
    expect((await request(t.http).get(`/v1/resolutions?subject_id=${encodeURIComponent(subject)}`).set(A).expect(200)).body).toEqual([]);
  });
});

describe('health of two tenants computed in turn for a subject id and session ids both use', () => {
  let t: TestApp;
  const A = { 'X-Tenant-ID': 'tenant-a' };
  const B = { 'X-Tenant-ID': 'tenant-b' };
  const subject = 'shared/turns';
  const path = `/v1/subjects/${encodeURIComponent(subject)}`;
  // A raises one issue three times; B three different questions, the last urgent.
  const turns: [Record<string, string>, string, string][] = [
    [A, 'chat-1', 'The CSV export of invoices times out after a minute'],
    [B, 'chat-1', 'How do I reset the password of a colleague?'],
    [A, 'chat-2', 'CSV export of invoices times out again after a minute'],
    [B, 'chat-2', 'Where can I download the mobile app for tablets?'],
    [A, 'chat-3', 'Invoices CSV export still times out after a minute'],
    [B, 'chat-3', 'URGENT: production is down for our whole team'],
  ];
  const health = async (tenant: Record<string, string>) => {
    const { score, state, factors } = (await request(t.http).get(`${path}/health`).set(tenant).expect(200)).body;
    return { score, state, factors };
  };

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' });
  });
  afterAll(() => t.close());

  it("gives each tenant the health of its own sessions while both tenants' recomputations interleave", async () => {
    for (const [tenant, session, text] of turns) {
      await request(t.http).post('/v1/episodes').set(tenant).send(customer(subject, session, text)).expect(201);
      await healthSettled(t);
      await health(A);
      await health(B);
    }
    const a = await health(A);
    const b = await health(B);
    expect(a.factors.find((f: { signal: string }) => f.signal === 'repeated_issues')?.detail).toBe('same issue raised in 3 sessions: chat-1, chat-2, chat-3');
    expect(a.factors.map((f: { signal: string }) => f.signal)).not.toContain('escalations');
    expect(b.factors.map((f: { signal: string }) => f.signal)).toContain('escalations');
    expect(b.factors.map((f: { signal: string }) => f.signal)).not.toContain('repeated_issues');

    // A new app (nothing read yet; PGlite serves one app at a time) computes the same from the stored rows.
    await t.close();
    t = await createTestApp({ SERVICE_REQUIRE_TENANT: 'true' }, { reset: false });
    expect(await health(A)).toEqual(a);
    expect(await health(B)).toEqual(b);
  });
});

describe('handoff brief of a short customer history', () => {
  let t: TestApp;
  const subject = 'brief/short';
  // Three short sessions in our own words: an onboarding question answered at once, an SSO
  // outage with a ticket, and the follow-up that asks about it.
  const conversation: [string, 'user' | 'agent', string][] = [
    ['s-a', 'user', 'Hi, I am Mira Olsen from Fjordline. How do I add a second admin?'],
    ['s-a', 'agent', 'Open Settings, then Team, and pick Make admin next to the person.'],
    ['s-b', 'user', 'Single sign-on with Okta stopped working for everyone this morning.'],
    ['s-b', 'agent', 'Sorry about that. I opened ticket ENG-4521 with the identity team.'],
    ['s-c', 'user', 'Any news on the SSO problem? We still log in with passwords.'],
  ];
  const raw = conversation.map(([, , text]) => text).join('\n');

  beforeAll(async () => {
    t = await createTestApp();
    for (const [session, who, text] of conversation) {
      await request(t.http).post('/v1/episodes').send((who === 'user' ? customer : agent)(subject, session, text)).expect(201);
    }
    await request(t.http).post('/v1/memories/compile').send({ subject_id: subject }).expect(200);
    await request(t.http).post('/v1/resolutions').send({ subject_id: subject, session_id: 's-a', status: 'resolved', resolution_summary: 'Explained admin roles' }).expect(200);
  });
  afterAll(() => t.close());

  it('is shorter than twice the conversation it covers, quotes each message once and keeps the required sections', async () => {
    const res = await request(t.http).post('/v1/handoff').send({ subject_id: subject, session_id: 's-c', reason: 'needs engineering' }).expect(200);
    const notes: string = res.body.handoff_notes;
    expect(notes.length).toBeLessThan(2 * raw.length);
    for (const [, , text] of conversation) expect(notes.split(text).length - 1).toBeLessThanOrEqual(1);
    expect(notes).toContain('ENG-4521');
    expect(notes.startsWith(`# Handoff Brief — ${subject}\n`)).toBe(true);
    const order = ['## Active Issue', '## Open Issues', '## Previously Resolved'].map((h) => notes.indexOf(h));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(notes).toMatch(/## Open Issues\n(- .*\n)*- `s-b`/);
    expect(notes).toMatch(/## Open Issues\n(- .*\n)*- `s-c`/);
    // The structured fields keep every item; only the brief drops repeats.
    expect(res.body.recent_context).toHaveLength(conversation.length);
    expect(res.body.active_issue).toBe(conversation[4][2]);
  });
});
