import { Ledger } from './ledger';

export type Query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/**
 * Checks the database against the ledger; returns the problems found (empty: all good).
 *
 * Durability: every acknowledged write is present — episodes, the memories a sync compile
 * returned, the effect of a sync compile (the subject's earlier episodes are compiled), async
 * jobs, resolutions — unless an acknowledged delete of the subject came later (then it is gone);
 * an unknown-outcome delete makes the earlier rows all-or-nothing.
 *
 * Nothing half-written, defined precisely:
 * - a batch is stored whole or not at all (episodes carrying its marker: 0 or its size);
 * - every memory's source episodes exist, belong to its subject and tenant, and are compiled;
 * - every compiled conversation episode with message text is the source of exactly one
 *   `episode_summary` (the heuristic compiler writes one per conversation episode): zero means
 *   "marked compiled without its memories", two means "compiled twice";
 * - a completed compile job's memory ids all exist;
 * - outbox: each stored single-ingested episode has exactly one `episode.created` event, and no
 *   such event names an episode that was never stored (its subject was not deleted).
 */
export async function checkInvariants(q: Query, ledger: Ledger): Promise<string[]> {
  const problems: string[] = [];
  const say = (s: string) => {
    if (problems.length < 50) problems.push(s);
  };

  const episodes = await q<{ id: string; subject_id: string; tenant_id: string | null; compiled: boolean; batch: string | null }>(
    `SELECT id, subject_id, tenant_id, last_compiled_at IS NOT NULL AS compiled, metadata->>'batch' AS batch FROM episodes`,
  );
  const episodeById = new Map(episodes.map((e) => [e.id, e]));
  const memories = await q<{ id: string; subject_id: string; tenant_id: string | null; kind: string; source_episode_ids: string[] }>(
    `SELECT id, subject_id, tenant_id, kind, source_episode_ids::text[] AS source_episode_ids FROM memories`,
  );
  const memoryIds = new Set(memories.map((m) => m.id));
  const jobs = await q<{ id: string; status: string; memory_ids: string[] | null }>(`SELECT id, status, memory_ids::text[] AS memory_ids FROM compile_jobs`);
  const jobById = new Map(jobs.map((j) => [j.id, j]));
  const resolutionIds = new Set((await q<{ id: string }>(`SELECT id FROM resolutions`)).map((r) => r.id));

  for (const op of ledger.ops) {
    if (op.state === 'failed' && (op.status ?? 0) >= 500) say(`op ${op.seq} ${op.kind} answered ${op.status}: ${op.error}`);
    const fate = ledger.fate(op);
    const expectRows = (what: string, ids: string[], present: (id: string) => boolean) => {
      const found = ids.filter(present).length;
      if (fate === 'kept' && found !== ids.length) say(`acknowledged ${what} of op ${op.seq} (${op.kind} ${op.subject}) lost: ${found}/${ids.length} present`);
      if (fate === 'gone' && found !== 0) say(`${what} of op ${op.seq} survived an acknowledged delete: ${found}/${ids.length}`);
    };
    if (op.state === 'acked') {
      if (op.episodeIds) expectRows('episodes', op.episodeIds, (id) => episodeById.has(id));
      if (op.memoryIds) expectRows('memories', op.memoryIds, (id) => memoryIds.has(id));
      if (op.jobId) expectRows('compile job', [op.jobId], (id) => jobById.has(id));
      if (op.resolutionId) expectRows('resolution', [op.resolutionId], (id) => resolutionIds.has(id));
      if (op.kind === 'compile' && fate === 'kept') {
        // Episodes acknowledged before the compile answered are compiled now.
        for (const earlier of ledger.ops) {
          if (earlier.seq >= op.seq || earlier.subject !== op.subject || earlier.tenant !== op.tenant || earlier.state !== 'acked') continue;
          for (const id of earlier.episodeIds ?? []) {
            const e = episodeById.get(id);
            if (e && !e.compiled) say(`episode ${id} (op ${earlier.seq}) not compiled after acknowledged compile op ${op.seq}`);
          }
        }
      }
    }
    if (op.kind === 'delete' && op.state === 'unknown') {
      // All-or-nothing: the subject's earlier acknowledged episodes are all there or all gone.
      const ids = ledger.ops.filter((o) => o.seq < op.seq && o.subject === op.subject && o.tenant === op.tenant && o.state === 'acked' && ledger.fate(o) !== 'gone').flatMap((o) => o.episodeIds ?? []);
      const found = ids.filter((id) => episodeById.has(id)).length;
      if (found !== 0 && found !== ids.length) say(`delete op ${op.seq} of ${op.subject} half applied: ${found}/${ids.length} earlier episodes remain`);
    }
    if (op.batch && op.state !== 'failed') {
      const n = episodes.filter((e) => e.batch === op.batch!.marker).length;
      if (n !== 0 && n !== op.batch.size) say(`batch op ${op.seq} partially stored: ${n}/${op.batch.size}`);
      if (op.state === 'acked' && fate === 'kept' && n !== op.batch.size) say(`acknowledged batch op ${op.seq} not stored whole: ${n}/${op.batch.size}`);
    }
  }

  for (const m of memories) {
    for (const id of m.source_episode_ids ?? []) {
      const e = episodeById.get(id);
      if (!e) say(`memory ${m.id} (${m.kind}) names missing source episode ${id}`);
      else if (e.subject_id !== m.subject_id || e.tenant_id !== m.tenant_id) say(`memory ${m.id} names episode ${id} of another subject/tenant`);
      else if (!e.compiled) say(`memory ${m.id} names uncompiled episode ${id}`);
    }
  }
  const summaries = new Map<string, number>();
  for (const m of memories) if (m.kind === 'episode_summary') for (const id of m.source_episode_ids ?? []) summaries.set(id, (summaries.get(id) ?? 0) + 1);
  const withText = await q<{ id: string }>(
    `SELECT id FROM episodes WHERE last_compiled_at IS NOT NULL AND type = 'conversation'
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(payload->'messages') = 'array' THEN payload->'messages' ELSE '[]'::jsonb END) m WHERE length(m->>'content') > 0)`,
  );
  for (const { id } of withText) {
    const n = summaries.get(id) ?? 0;
    if (n === 0) say(`episode ${id} is marked compiled but no episode_summary came from it`);
    if (n > 1) say(`episode ${id} compiled ${n} times (${n} episode summaries)`);
  }
  for (const j of jobs) {
    if (j.status !== 'completed') continue;
    const missing = (j.memory_ids ?? []).filter((id) => !memoryIds.has(id));
    if (missing.length) say(`completed job ${j.id} names ${missing.length} missing memories`);
  }

  const created = await q<{ episode_id: string; n: number }>(
    `SELECT payload->'data'->>'id' AS episode_id, count(*)::int AS n FROM webhook_events WHERE event = 'episode.created' GROUP BY 1`,
  );
  const createdEvents = new Map(created.map((r) => [r.episode_id, r.n]));
  for (const op of ledger.ops) {
    if (op.kind !== 'ingest') continue;
    for (const id of op.episodeIds ?? []) {
      const n = createdEvents.get(id) ?? 0;
      if (episodeById.has(id) && n !== 1) say(`episode ${id} has ${n} episode.created events`);
    }
  }
  const deletedSubjects = new Set(ledger.ops.filter((o) => o.kind === 'delete' && o.state !== 'failed').map((o) => o.subject));
  const subjectOfEvent = await q<{ episode_id: string; subject_id: string }>(
    `SELECT payload->'data'->>'id' AS episode_id, payload->'data'->>'subject_id' AS subject_id FROM webhook_events WHERE event = 'episode.created'`,
  );
  for (const r of subjectOfEvent) {
    if (!episodeById.has(r.episode_id) && !deletedSubjects.has(r.subject_id)) say(`episode.created event for episode ${r.episode_id} that was never stored`);
  }
  return problems;
}

/**
 * After recovery: no job waits or runs, every acknowledged async job that was not deleted has
 * completed, every event is delivered (none dead), and the receiver has every event id.
 */
export async function checkConverged(q: Query, ledger: Ledger, received: Set<string>): Promise<string[]> {
  const problems: string[] = [];
  const jobs = await q<{ id: string; status: string; error: string | null }>(`SELECT id, status, error FROM compile_jobs`);
  const byId = new Map(jobs.map((j) => [j.id, j]));
  for (const j of jobs) if (j.status !== 'completed') problems.push(`job ${j.id} is ${j.status}${j.error ? `: ${j.error}` : ''}`);
  for (const op of ledger.ops) {
    if (op.kind === 'compile_async' && op.state === 'acked' && ledger.fate(op) === 'kept' && byId.get(op.jobId!)?.status !== 'completed') {
      problems.push(`acknowledged async compile ${op.jobId} (op ${op.seq}) did not complete`);
    }
  }
  const events = await q<{ id: string; status: string }>(`SELECT id, status FROM webhook_events`);
  for (const e of events) {
    if (e.status !== 'delivered') problems.push(`event ${e.id} is ${e.status}`);
    if (!received.has(e.id)) problems.push(`event ${e.id} never reached the receiver`);
  }
  return problems.slice(0, 50);
}
