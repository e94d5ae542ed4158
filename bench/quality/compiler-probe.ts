/**
 * Quality probe of the heuristic compiler on LoCoMo conversations (development split).
 *
 * Each turn becomes one conversation episode (role = speaker name), compiled session by
 * session on top of the memories active so far, as a live subject would be. Prints per
 * conversation how many facts and procedures came out, the attributes found, how often the
 * QA evidence turns yielded a fact, and a seeded random sample of facts to judge by eye.
 *
 * Run (no ts-node in this repo; compile, then resolve `src/…` through NODE_PATH):
 *   npx tsc -p tsconfig.json --outDir /tmp/probe
 *   NODE_PATH=/tmp/probe node /tmp/probe/bench/quality/compiler-probe.js \
 *     [../shared/data/locomo-dev.json] [sample-size] [seed]
 *
 * LoCoMo: Maharana et al., ACL 2024, CC BY-NC 4.0 (see /work/shared/data/README.md).
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_LOCOMO_PATH } from '../common/service';
import { prng } from '../common/stats';
import { compileHeuristic } from 'src/compiler/heuristic-compiler';
import type { CompilerEpisode, ExistingMemory, MemoryDraft } from 'src/compiler/compiler.types';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; answer?: unknown; evidence?: string[]; category: number }[];
}

interface StoredMemory extends MemoryDraft {
  id: string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → Date (UTC). */
function sessionDate(text: unknown, fallback: Date): Date {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s*(\d{4})/i.exec(String(text));
  if (!m) return fallback;
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  const month = MONTHS.indexOf(m[5].toLowerCase());
  return new Date(Date.UTC(Number(m[6]), Math.max(0, month), Number(m[4]), hour, Number(m[2])));
}


function sessionsOf(sample: Sample): { n: number; date: unknown; turns: Turn[] }[] {
  return Object.keys(sample.conversation)
    .filter((k) => /^session_\d+$/.test(k))
    .map((k) => ({ n: Number(k.slice(8)), date: sample.conversation[`${k}_date_time`], turns: sample.conversation[k] as Turn[] }))
    .sort((a, b) => a.n - b.n);
}

function main(): void {
  const path = process.argv[2] ?? DEFAULT_LOCOMO_PATH;
  const sampleSize = Number(process.argv[3] ?? 40);
  const random = prng(Number(process.argv[4] ?? 7));
  const samples = JSON.parse(readFileSync(path, 'utf8')) as Sample[];

  const allFacts: { memory: StoredMemory; turn: string }[] = [];
  const attributeCounts = new Map<string, number>();
  let totalMs = 0;
  let totalTurns = 0;

  for (const sample of samples) {
    const turnText = new Map<string, string>();
    const episodeTurn = new Map<string, string>();
    const memories: StoredMemory[] = [];
    let nextId = 0;
    let superseded = 0;
    let turns = 0;
    let previous = new Date(Date.UTC(2020, 0, 1));

    for (const session of sessionsOf(sample)) {
      const start = sessionDate(session.date, previous);
      previous = start;
      const episodes: CompilerEpisode[] = session.turns.map((turn, i) => {
        const id = `${sample.sample_id}/${turn.dia_id}`;
        turnText.set(turn.dia_id, `${turn.speaker}: ${turn.text}`);
        episodeTurn.set(id, turn.dia_id);
        return {
          id,
          session_id: `${sample.sample_id}/session_${session.n}`,
          source: 'chat',
          type: 'conversation',
          payload: { messages: [{ role: turn.speaker, content: turn.text }] },
          metadata: {},
          created_at: new Date(start.getTime() + i * 30_000),
        };
      });
      turns += episodes.length;
      const existing: ExistingMemory[] = memories
        .filter((m) => m.status === 'active')
        .map((m) => ({ id: m.id, kind: m.kind, content: m.content, summary: m.summary, attribute_key: m.attribute_key, valid_from: m.valid_from }));
      const t0 = process.hrtime.bigint();
      const plan = compileHeuristic(episodes, existing);
      totalMs += Number(process.hrtime.bigint() - t0) / 1e6;
      for (const { id, valid_to } of plan.supersede) {
        const old = memories.find((m) => m.id === id);
        if (old) {
          old.status = 'superseded';
          old.valid_to = valid_to;
          superseded++;
        }
      }
      for (const draft of plan.drafts) {
        memories.push({ ...draft, id: `m${nextId++}` });
        if (draft.status === 'superseded') superseded++;
      }
    }
    totalTurns += turns;

    const facts = memories.filter((m) => m.kind === 'profile_fact');
    const procedures = memories.filter((m) => m.kind === 'procedure');
    const summaries = memories.filter((m) => m.kind === 'episode_summary');
    const perAttribute = new Map<string, number>();
    for (const f of facts) {
      const attribute = String(f.metadata.attribute);
      perAttribute.set(attribute, (perAttribute.get(attribute) ?? 0) + 1);
      attributeCounts.set(attribute, (attributeCounts.get(attribute) ?? 0) + 1);
      allFacts.push({ memory: f, turn: turnText.get(episodeTurn.get(f.source_episode_ids[0]) ?? '') ?? '' });
    }
    const factTurns = new Set(facts.flatMap((f) => f.source_episode_ids.map((id) => episodeTurn.get(id))));
    const evidence = new Set(
      sample.qa
        .filter((q) => q.category === 1 || q.category === 4)
        .flatMap((q) => q.evidence ?? [])
        .flatMap((e) => e.split(/[;,]\s*/))
        .filter((e) => turnText.has(e)),
    );
    const covered = [...evidence].filter((e) => factTurns.has(e)).length;
    console.log(
      `${sample.sample_id}: ${turns} turns → ${facts.length} facts (${facts.filter((f) => f.status === 'active').length} active), ` +
        `${procedures.length} procedures, ${summaries.length} summaries, ${superseded} superseded; ` +
        `single/multi-hop evidence turns with a fact: ${covered}/${evidence.size}`,
    );
    console.log(`   attributes: ${[...perAttribute].sort((a, b) => b[1] - a[1]).map(([a, n]) => `${a}=${n}`).join(' ')}`);
    for (const p of procedures.slice(0, 5)) console.log(`   procedure: ${p.summary} | ${p.content.replace(/\n/g, ' / ').slice(0, 160)}`);
  }

  console.log(`\nall: ${allFacts.length} facts from ${totalTurns} turns; compile time ${totalMs.toFixed(0)} ms total`);
  console.log(`attributes: ${[...attributeCounts].sort((a, b) => b[1] - a[1]).map(([a, n]) => `${a}=${n}`).join(' ')}`);
  console.log(`\nrandom sample of ${Math.min(sampleSize, allFacts.length)} facts:`);
  const pool = [...allFacts];
  for (let i = 0; i < sampleSize && pool.length > 0; i++) {
    const [pick] = pool.splice(Math.floor(random() * pool.length), 1);
    console.log(`- [${pick.memory.confidence}] ${pick.memory.summary}\n    ⟵ ${pick.turn.slice(0, 200)}`);
  }
}

main();
