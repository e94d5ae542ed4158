/**
 * Context-quality benchmark: `npm run bench:quality [-- --engine pglite|postgres] [--data path]
 * [--base URL | --main other/dist/src/main.js] [--budgets 500,1000,2000]`.
 *
 * Starts the built service (PGlite by default; `--engine postgres` uses a fresh database on
 * BENCH_PG_ADMIN_URL), ingests each LoCoMo conversation through POST /v1/episodes/batch (one
 * episode per turn, session number as session_id, the session's date in `payload.date`),
 * compiles it with the configured compiler, then asks POST /v1/context for every question of
 * categories 1–4 at each budget. Two baselines are computed in the same run from the raw turns,
 * rendered as the service renders an episode line and measured with the same token counter:
 * the most recent turns that fit, and BM25 over turns. Prints a table, writes
 * bench/results/quality-<engine>.json. No LLM judge: the figures are deterministic for a given
 * build (up to ties broken by ingestion timing, see bench/README.md).
 *
 * Data: LoCoMo (Maharana et al., ACL 2024), CC BY-NC 4.0 — see /work/shared/data/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { countTokens } from 'src/common/text/tokenizer';
import { renderLine } from 'src/modules/context/packing';
import { client } from '../common/http';
import { arg, DEFAULT_LOCOMO_PATH, serviceUnderTest } from '../common/service';
import { summarise, Summary } from '../common/stats';
import {
  answerTokenRecall,
  bm25Order,
  CATEGORIES,
  Category,
  Conversation,
  evidenceRecall,
  loadLocomo,
  packLines,
  recentOrder,
  turnContent,
} from './metrics';
import { ingestConversation } from './ingest';
import { loadSupportSet, supportRecall, SupportTask } from './support';

const SYSTEMS = ['recent', 'bm25', 'ours'] as const;
type System = (typeof SYSTEMS)[number];
type Column = Category | 'all';
const COLUMNS: Column[] = [1, 2, 3, 4, 'all'];
/** The figure the issue's target is stated at. */
const TARGET_BUDGET = 1000;
/** Support-set budgets: a tight one, the 800 of issue 17 item 6, and the service default. */
const SUPPORT_BUDGETS = [300, 800, 4000];

const log = (s: string) => process.stderr.write(`[quality] ${s}\n`);

/** Means of one metric per (budget, system, column). */
class Tally {
  private readonly cells = new Map<string, { sum: number; n: number }>();

  add(budget: number, system: System, category: Category, value: number | null): void {
    if (value === null) return;
    for (const key of [`${budget}|${system}|${category}`, `${budget}|${system}|all`]) {
      const cell = this.cells.get(key) ?? { sum: 0, n: 0 };
      cell.sum += value;
      cell.n += 1;
      this.cells.set(key, cell);
    }
  }

  mean(budget: number, system: System, column: Column): number {
    const cell = this.cells.get(`${budget}|${system}|${column}`);
    return cell ? cell.sum / cell.n : NaN;
  }

  count(budget: number, system: System, column: Column): number {
    return this.cells.get(`${budget}|${system}|${column}`)?.n ?? 0;
  }

  sum(budget: number, system: System, column: Column): number {
    return this.cells.get(`${budget}|${system}|${column}`)?.sum ?? 0;
  }
}

interface Bundle {
  facts: { source_episode_ids: string[] }[];
  procedures: { source_episode_ids: string[] }[];
  provenance: { episode_ids: string[] };
  assembled_context: string;
  token_estimate: number;
}

/** The bundle without its task section: answer words are looked for in the context only. */
function withoutTask(context: string): string {
  const next = context.indexOf('\n## ', 1);
  return next < 0 ? '' : context.slice(next);
}

async function main(): Promise<void> {
  const dataPath = arg('data', DEFAULT_LOCOMO_PATH)!;
  const budgets = (arg('budgets', '500,1000,2000') ?? '').split(',').map(Number);
  /** `--per-question FILE`: one JSON line per question and budget (recall and the evidence the bundle missed), to compare builds question by question. */
  const perQuestionFile = arg('per-question');
  const perQuestion: string[] = [];
  const conversations: Conversation[] = loadLocomo(dataPath);

  const { base, svc } = await serviceUnderTest(log);
  const api = client(base);
  const evidence = new Tally();
  const answers = new Tally();
  const tokens = new Tally();
  // Tokens are the currency (issue 21): over the questions with evidence, the tokens spent, the
  // question's evidence turns they carried, and the distinct turns a bundle covers (a fact or
  // summary covers the turns it cites).
  const evidenceTokens = new Tally();
  const evidenceFound = new Tally();
  const turnsCovered = new Tally();
  const latency = new Map<number, number[]>(budgets.map((b) => [b, []]));
  const support = new Map<string, { sum: number; n: number }>();
  let overshoots = 0;
  let requests = 0;
  const run = `${Date.now()}`;

  try {
    for (const conv of conversations) {
      const subjectId = `locomo/${conv.sampleId}/${run}`;
      const started = performance.now();
      const { episodeIdOf, memoriesCreated } = await ingestConversation(api, subjectId, conv);
      log(`${conv.sampleId}: ${conv.turns.length} turns ingested, ${memoriesCreated} memories compiled in ${Math.round(performance.now() - started)} ms`);
      const dialogueOf = new Map([...episodeIdOf].map(([dia, ep]) => [ep, dia]));

      const lines = conv.turns.map((t) =>
        renderLine({ id: t.id, label: 'raw_episode', text: turnContent(t), created_at: t.created_at, valid_to: null, session_id: String(t.session), source_episode_ids: [], date_label: t.date }),
      );
      const lineTokens = lines.map(countTokens);
      const ids = conv.turns.map((t) => t.id);
      const contents = conv.turns.map(turnContent);

      // This conversation's own figures, for leave-one-conversation-out checks of a choice.
      const local = new Tally();
      for (const q of conv.questions) {
        const orders = { recent: recentOrder(conv.turns.length), bm25: bm25Order(q.question, contents) };
        for (const budget of budgets) {
          const t0 = performance.now();
          const bundle = await api.call<Bundle>('POST', '/v1/context', { subject_id: subjectId, task: q.question, max_tokens: budget });
          latency.get(budget)!.push(performance.now() - t0);
          requests++;
          if (bundle.token_estimate > budget || countTokens(bundle.assembled_context) !== bundle.token_estimate) overshoots++;
          const included = new Set<string>();
          const sourceIds = [...bundle.provenance.episode_ids, ...[...bundle.facts, ...bundle.procedures].flatMap((m) => m.source_episode_ids)];
          for (const id of sourceIds) {
            const dia = dialogueOf.get(id);
            if (dia) included.add(dia);
          }
          const results: Record<System, { ids: ReadonlySet<string>; text: string; tokens: number }> = {
            recent: packLines(orders.recent, lines, lineTokens, ids, budget),
            bm25: packLines(orders.bm25, lines, lineTokens, ids, budget),
            ours: { ids: included, text: withoutTask(bundle.assembled_context), tokens: bundle.token_estimate },
          };
          for (const system of SYSTEMS) {
            const r = results[system];
            const recall = evidenceRecall(q.evidence, r.ids);
            evidence.add(budget, system, q.category, recall);
            local.add(budget, system, q.category, recall);
            answers.add(budget, system, q.category, answerTokenRecall(q.answer, r.text));
            tokens.add(budget, system, q.category, r.tokens);
            const found = recall === null ? null : recall * q.evidence.length;
            evidenceTokens.add(budget, system, q.category, found === null ? null : r.tokens);
            evidenceFound.add(budget, system, q.category, found);
            turnsCovered.add(budget, system, q.category, found === null ? null : r.ids.size);
          }
          if (perQuestionFile !== undefined) {
            const missed = q.evidence.filter((e) => !included.has(e));
            perQuestion.push(JSON.stringify({ conversation: conv.sampleId, question: q.question, category: q.category, budget, recall: evidenceRecall(q.evidence, included), missed }));
          }
        }
      }
      const recall = budgets.map((b) => `${b}: ${(100 * local.mean(b, 'ours', 'all')).toFixed(1)}`).join(', ');
      log(`${conv.sampleId}: ${conv.questions.length} questions × ${budgets.length} budgets asked; evidence recall (ours) ${recall}`);
    }

    const supportTasks: SupportTask[] = await loadSupportSet(api, run);
    for (const task of supportTasks) {
      for (const budget of SUPPORT_BUDGETS) {
        const bundle = await api.call<Bundle>('POST', '/v1/context', { subject_id: task.subjectId, task: task.task, max_tokens: budget });
        requests++;
        if (bundle.token_estimate > budget || countTokens(bundle.assembled_context) !== bundle.token_estimate) overshoots++;
        const value = supportRecall(task.expected, withoutTask(bundle.assembled_context));
        for (const key of [`${budget}|${task.kind}`, `${budget}|all`]) {
          const cell = support.get(key) ?? { sum: 0, n: 0 };
          cell.sum += value;
          cell.n += 1;
          support.set(key, cell);
        }
      }
    }
    log(`support set: ${supportTasks.length} tasks × ${SUPPORT_BUDGETS.length} budgets asked`);
  } finally {
    if (svc) await svc.stop();
  }

  if (perQuestionFile !== undefined) writeFileSync(perQuestionFile, perQuestion.map((line) => `${line}\n`).join(''));
  const titles = COLUMNS.map((c) => (c === 'all' ? 'overall' : `${c} ${CATEGORIES[c]}`));
  const pct = (x: number) => (Number.isNaN(x) ? 'n/a' : (x * 100).toFixed(1));
  const table: string[] = [`| budget | metric | system | ${titles.join(' | ')} |`, `|${' --- |'.repeat(3 + COLUMNS.length)}`];
  for (const budget of budgets) {
    for (const [metric, tally] of [['evidence recall', evidence], ['answer-token recall', answers]] as const) {
      for (const system of SYSTEMS) {
        table.push(`| ${budget} | ${metric} | ${system} | ${COLUMNS.map((c) => pct(tally.mean(budget, system, c))).join(' | ')} |`);
      }
    }
  }
  const latencies: Record<string, Summary> = {};
  for (const budget of budgets) {
    const samples = latency.get(budget)!;
    latencies[budget] = summarise(samples, samples.reduce((a, b) => a + b, 0));
  }
  const verdict = COLUMNS.map((c) => {
    const ours = evidence.mean(TARGET_BUDGET, 'ours', c);
    const bm25 = evidence.mean(TARGET_BUDGET, 'bm25', c);
    return { column: c === 'all' ? 'overall' : CATEGORIES[c], ours, bm25, met: ours >= bm25 };
  });

  console.log(`\nContext quality on LoCoMo (${conversations.length} conversations, engine ${svc?.engine ?? `external ${base}`})\n`);
  console.log(table.join('\n'));
  console.log('');
  for (const budget of budgets) {
    const l = latencies[budget];
    const used = SYSTEMS.map((s) => `${s} ${tokens.mean(budget, s, 'all').toFixed(0)}`).join(', ');
    console.log(`budget ${budget}: context latency p50 ${l.p50} ms, p95 ${l.p95} ms (n=${l.n}); mean tokens used: ${used}`);
  }
  /** Every token of the bundles over the evidence turns they held, overall; null when none was held. */
  const tokensPerEvidenceTurn = (budget: number, system: System): number | null => {
    const found = evidenceFound.sum(budget, system, 'all');
    return found > 0 ? evidenceTokens.sum(budget, system, 'all') / found : null;
  };
  const turnsCoveredPerBundle = (budget: number, system: System): number | null =>
    turnsCovered.count(budget, system, 'all') > 0 ? turnsCovered.mean(budget, system, 'all') : null;
  console.log('\nTokens per evidence turn found (every token of the bundles over the question evidence turns they held), and the distinct turns a bundle covers\n');
  console.log(`| budget | ${SYSTEMS.map((s) => `${s} tokens / evidence turn | ${s} turns covered`).join(' | ')} |`);
  console.log(`|${' --- |'.repeat(1 + 2 * SYSTEMS.length)}`);
  for (const budget of budgets) {
    const cells = SYSTEMS.map((s) => `${tokensPerEvidenceTurn(budget, s)?.toFixed(0) ?? 'n/a'} | ${turnsCoveredPerBundle(budget, s)?.toFixed(1) ?? 'n/a'}`);
    console.log(`| ${budget} | ${cells.join(' | ')} |`);
  }
  const supportKinds = ['integration', 'reply', 'open-ticket', 'resolved-ticket', 'all'];
  const supportMean = (key: string) => {
    const cell = support.get(key);
    return cell ? cell.sum / cell.n : NaN;
  };
  console.log(`\nSupport scenario set (expected strings found in the bundle, %)\n`);
  console.log(`| budget | ${supportKinds.join(' | ')} |`);
  console.log(`|${' --- |'.repeat(1 + supportKinds.length)}`);
  for (const budget of SUPPORT_BUDGETS) console.log(`| ${budget} | ${supportKinds.map((k) => pct(supportMean(`${budget}|${k}`))).join(' | ')} |`);
  console.log('');
  const counts = COLUMNS.map((c) => `${c}: ${evidence.count(budgets[0], 'ours', c)}`).join(', ');
  console.log(`questions with evidence — ${counts}; requests ${requests}; budget overshoots ${overshoots}`);
  if (evidence.count(TARGET_BUDGET, 'ours', 'all') > 0) {
    console.log(`target (evidence recall at ${TARGET_BUDGET} ≥ BM25, overall and per category): ${verdict.every((v) => v.met) ? 'met' : 'MISSED'} — ${verdict.map((v) => `${v.column} ${pct(v.ours)} vs ${pct(v.bm25)}`).join('; ')}`);
  }

  const out = resolve(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `quality-${svc?.engine ?? 'external'}.json`);
  const metrics = (tally: Tally) =>
    Object.fromEntries(budgets.map((b) => [b, Object.fromEntries(SYSTEMS.map((s) => [s, Object.fromEntries(COLUMNS.map((c) => [c === 'all' ? 'overall' : CATEGORIES[c], tally.mean(b, s, c)]))]))]));
  writeFileSync(
    file,
    JSON.stringify(
      {
        generated_at: new Date().toISOString(),
        engine: svc?.engine ?? 'external',
        data: dataPath,
        conversations: conversations.length,
        questions: Object.fromEntries(COLUMNS.map((c) => [c === 'all' ? 'overall' : CATEGORIES[c], evidence.count(budgets[0], 'ours', c)])),
        budgets,
        evidence_recall: metrics(evidence),
        answer_token_recall: metrics(answers),
        support_recall: Object.fromEntries(SUPPORT_BUDGETS.map((b) => [b, Object.fromEntries(supportKinds.map((k) => [k, supportMean(`${b}|${k}`)]))])),
        mean_tokens_used: metrics(tokens),
        tokens_per_evidence_turn: Object.fromEntries(budgets.map((b) => [b, Object.fromEntries(SYSTEMS.map((s) => [s, tokensPerEvidenceTurn(b, s)]))])),
        turns_covered_per_bundle: Object.fromEntries(budgets.map((b) => [b, Object.fromEntries(SYSTEMS.map((s) => [s, turnsCoveredPerBundle(b, s)]))])),
        latency_ms: latencies,
        requests,
        budget_overshoots: overshoots,
        target: { budget: TARGET_BUDGET, met: verdict.every((v) => v.met), columns: verdict },
      },
      null,
      2,
    ),
  );
  log(`wrote ${file}`);
  if (api.errors > 0) throw new Error(`${api.errors} request(s) failed`);
}

main().catch((err) => {
  process.stderr.write(`[quality] failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
