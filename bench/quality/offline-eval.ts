/**
 * Offline context-quality check on LoCoMo, without server or database: every turn becomes a
 * `raw_episode` candidate (created at its session's date, session id = session number), each
 * question is the task, and the service's own scoring, selection and packing build the bundle.
 * Evidence recall and answer-token recall are compared with two baselines at several budgets.
 *
 * Usage (compiled to CommonJS, with `src/*` resolvable through NODE_PATH):
 *   node offline-eval.js [path/to/locomo.json] [budgets, e.g. 500,1000,2000]
 */
import { countTokens } from 'src/common/text/tokenizer';
import { packContext, renderLine } from 'src/modules/context/packing';
import { ContextCandidate, scoreCandidates, selectCandidates } from 'src/modules/context/ranking';
import {
  answerTokenRecall,
  bm25Order,
  CATEGORIES,
  Category,
  evidenceRecall,
  loadLocomo,
  packLines,
  recentOrder,
  turnContent,
} from './metrics';

const DEFAULT_BUDGETS = [500, 1000, 2000];
const SYSTEMS = ['recent', 'bm25', 'ours'] as const;
type System = (typeof SYSTEMS)[number];
const DAY_MS = 24 * 3600 * 1000;

/** Sums and counts of one metric, per (budget, system, category). */
class Tally {
  private readonly sums = new Map<string, { sum: number; n: number }>();

  add(budget: number, system: System, category: Category, value: number | null): void {
    if (value === null) return;
    for (const key of [`${budget}|${system}|${category}`, `${budget}|${system}|all`]) {
      const cell = this.sums.get(key) ?? { sum: 0, n: 0 };
      cell.sum += value;
      cell.n += 1;
      this.sums.set(key, cell);
    }
  }

  mean(budget: number, system: System, category: Category | 'all'): { mean: number; n: number } {
    const cell = this.sums.get(`${budget}|${system}|${category}`);
    return cell ? { mean: cell.sum / cell.n, n: cell.n } : { mean: NaN, n: 0 };
  }
}

function main(path: string, budgets: number[]): void {
  const evidence = new Tally();
  const answers = new Tally();
  const tokensUsed = new Tally();
  let overBudget = 0;

  for (const conv of loadLocomo(path)) {
    const candidates: ContextCandidate[] = conv.turns.map((t) => ({
      id: t.id,
      label: 'raw_episode',
      text: turnContent(t),
      created_at: t.created_at,
      valid_to: null,
      session_id: String(t.session),
      source_episode_ids: [t.id],
    }));
    const contents = candidates.map((c) => c.text);
    const lines = candidates.map(renderLine);
    const lineTokens = lines.map(countTokens);
    const ids = candidates.map((c) => c.id);
    const now = new Date(Math.max(...conv.turns.map((t) => t.created_at.getTime())) + DAY_MS);

    for (const q of conv.questions) {
      const ranked = scoreCandidates(q.question, candidates, { now });
      const orders = { recent: recentOrder(candidates.length), bm25: bm25Order(q.question, contents) };
      for (const budget of budgets) {
        const packed = packContext({
          subjectId: conv.sampleId,
          task: q.question,
          maxTokens: budget,
          ranked: selectCandidates(ranked, { maxTokens: budget }),
        });
        const exact = countTokens(packed.assembled_context) === packed.token_estimate;
        if (packed.token_estimate > budget || !exact) overBudget += 1;
        const results: Record<System, { ids: ReadonlySet<string>; text: string; tokens: number }> = {
          recent: packLines(orders.recent, lines, lineTokens, ids, budget),
          bm25: packLines(orders.bm25, lines, lineTokens, ids, budget),
          // Answer words are looked for in the items only: the task block repeats the question.
          ours: {
            ids: new Set(packed.included.map((c) => c.id)),
            text: packed.included.map(renderLine).join(''),
            tokens: packed.token_estimate,
          },
        };
        for (const system of SYSTEMS) {
          const r = results[system];
          evidence.add(budget, system, q.category, evidenceRecall(q.evidence, r.ids));
          answers.add(budget, system, q.category, answerTokenRecall(q.answer, r.text));
          tokensUsed.add(budget, system, q.category, r.tokens);
        }
      }
    }
  }

  const columns: (Category | 'all')[] = [1, 2, 3, 4, 'all'];
  const titles = columns.map((c) => (c === 'all' ? 'overall' : `${c} ${CATEGORIES[c]}`));
  console.log(`| budget | metric | system | ${titles.join(' | ')} |`);
  console.log(`|${' --- |'.repeat(3 + columns.length)}`);
  for (const budget of budgets) {
    const metrics = [['evidence recall', evidence], ['answer-token recall', answers]] as const;
    for (const [metric, tally] of metrics) {
      for (const system of SYSTEMS) {
        const cells = columns.map((c) => (tally.mean(budget, system, c).mean * 100).toFixed(1));
        console.log(`| ${budget} | ${metric} | ${system} | ${cells.join(' | ')} |`);
      }
    }
  }
  for (const budget of budgets) {
    const used = SYSTEMS.map((s) => `${s} ${tokensUsed.mean(budget, s, 'all').mean.toFixed(0)}`);
    console.log(`mean tokens used at ${budget}: ${used.join(', ')}`);
  }
  const counts = columns.map((c) => `${c}: ${evidence.mean(budgets[0], 'ours', c).n}`).join(', ');
  console.log(`\nquestions with evidence — ${counts}; bundles over budget or miscounted: ${overBudget}`);
}

main(
  process.argv[2] ?? '/work/shared/data/locomo-dev.json',
  process.argv[3] ? process.argv[3].split(',').map(Number) : DEFAULT_BUDGETS,
);
