/**
 * Offline context-quality check on LoCoMo, without server or database, in seconds rather than
 * the minutes of `npm run bench:quality`: each conversation is compiled with the heuristic
 * compiler, every active memory and every turn becomes a candidate (the service fetches a
 * bounded subset of these by SQL), each question is the task, and the service's own assembly
 * (src/modules/context/assemble.ts, with what the stub embedding gives ranking: nothing, as it is lexical) builds
 * the bundle. Figures track the service's closely but not exactly; the service's are the ones
 * reported. `--by-conversation` prints each conversation's figures, for leave-one-out checks.
 *
 * Ranking expands the task's words with the vendored word vectors, as the service does;
 * `--compare-word-vectors` adds the same ranking without them ("no-vectors") to the same run.
 *
 * Usage (after `npm run build`):
 *   node dist/bench/quality/offline-eval.js [--data path] [--budgets 500,1000,2000] [--by-conversation] [--compare-word-vectors]
 */
import { countTokens } from 'src/common/text/tokenizer';
import type { CompilerEpisode } from 'src/compiler/compiler.types';
import { StubEmbeddingProvider } from 'src/modules/models/embedding-provider';
import { wordVectors } from 'src/common/text/word-vectors';
import { assembleContext } from 'src/modules/context/assemble';
import { renderLine } from 'src/modules/context/packing';
import type { ContextCandidate } from 'src/modules/context/ranking';
import { compiledCandidates } from './candidates';
import { arg, DEFAULT_LOCOMO_PATH } from '../common/service';
import {
  answerTokenRecall,
  bm25Order,
  CATEGORIES,
  Category,
  Conversation,
  evidenceRecall,
  loadLocomo,
  packLines,
  turnContent,
} from './metrics';

type System = 'bm25' | 'ours' | 'no-vectors';
const DAY_MS = 24 * 3600 * 1000;

class Tally {
  private readonly sums = new Map<string, { sum: number; n: number }>();

  add(key: string, category: Category, value: number | null): void {
    if (value === null) return;
    for (const k of [`${key}|${category}`, `${key}|all`]) {
      const cell = this.sums.get(k) ?? { sum: 0, n: 0 };
      cell.sum += value;
      cell.n += 1;
      this.sums.set(k, cell);
    }
  }

  mean(key: string, category: Category | 'all'): number {
    const cell = this.sums.get(`${key}|${category}`);
    return cell ? cell.sum / cell.n : NaN;
  }
}

/**
 * The instant a conversation's questions are asked: a day after its last turn, so that every turn
 * is in the past and recency spans the whole conversation.
 */
export function askedAt(conv: Conversation): Date {
  return new Date(Math.max(...conv.turns.map((t) => t.created_at.getTime())) + DAY_MS);
}

/** The candidates the service would hold for this conversation, had it fetched everything. */
export function conversationCandidates(conv: Conversation): { candidates: ContextCandidate[]; memoryText: Map<string, string> } {
  const episodes: CompilerEpisode[] = conv.turns.map((t) => ({
    id: t.id,
    session_id: String(t.session),
    source: 'chat',
    type: 'conversation',
    payload: { messages: [{ role: t.speaker, content: t.text }], session: t.session, date: t.date },
    metadata: {},
    created_at: t.created_at,
  }));
  const candidates = compiledCandidates(episodes);
  const memoryText = new Map(candidates.filter((c) => c.label !== 'raw_episode').map((c) => [c.id, c.text]));
  return { candidates, memoryText };
}

function main(): void {
  const path = arg('data', DEFAULT_LOCOMO_PATH)!;
  const budgets = (arg('budgets', '500,1000,2000') ?? '').split(',').map(Number);
  const byConversation = process.argv.includes('--by-conversation');
  const provider = new StubEmbeddingProvider(1536);
  const vectors = wordVectors((err) => {
    throw err;
  });
  const systems: System[] = process.argv.includes('--compare-word-vectors') ? ['bm25', 'no-vectors', 'ours'] : ['bm25', 'ours'];
  const evidence = new Tally();
  const answers = new Tally();
  let overBudget = 0;
  const perConv: string[] = [];

  for (const conv of loadLocomo(path)) {
    const { candidates } = conversationCandidates(conv);
    const lines = conv.turns.map((t) =>
      renderLine({ id: t.id, label: 'raw_episode', text: turnContent(t), created_at: t.created_at, valid_to: null, session_id: String(t.session), source_episode_ids: [], date_label: t.date }),
    );
    const lineTokens = lines.map(countTokens);
    const ids = conv.turns.map((t) => t.id);
    const contents = conv.turns.map(turnContent);
    const now = askedAt(conv);
    const local = new Tally();

    for (const q of conv.questions) {
      // As the service does: a lexical embedding (the stub) gives no semantic relevance.
      const similarity = provider.lexical ? null : provider.localSimilarity(q.question);
      const scored = candidates.map((c) => (c.label === 'raw_episode' || similarity === null ? c : { ...c, semantic_similarity: similarity(c.text) }));
      const order = bm25Order(q.question, contents);
      for (const budget of budgets) {
        const results = new Map<System, { ids: ReadonlySet<string>; text: string }>([['bm25', packLines(order, lines, lineTokens, ids, budget)]]);
        for (const system of systems) {
          if (system === 'bm25') continue;
          const packed = assembleContext(conv.sampleId, q.question, scored, { maxTokens: budget, now, wordVectors: system === 'ours' ? vectors : null });
          if (packed.token_estimate > budget || countTokens(packed.assembled_context) !== packed.token_estimate) overBudget++;
          const next = packed.assembled_context.indexOf('\n## ', 1);
          results.set(system, { ids: new Set(packed.included.flatMap((c) => c.source_episode_ids)), text: next < 0 ? '' : packed.assembled_context.slice(next) });
        }
        for (const system of systems) {
          for (const t of [evidence, local]) t.add(`${budget}|${system}|e`, q.category, evidenceRecall(q.evidence, results.get(system)!.ids));
          answers.add(`${budget}|${system}|a`, q.category, answerTokenRecall(q.answer, results.get(system)!.text));
        }
      }
    }
    if (byConversation) {
      const others = (b: number) => systems.filter((s) => s !== 'ours').map((s) => `${s} ${(local.mean(`${b}|${s}|e`, 'all') * 100).toFixed(1)}`);
      const cells = budgets.map((b) => `${b}: ${(local.mean(`${b}|ours|e`, 'all') * 100).toFixed(1)} (${others(b).join(', ')})`);
      perConv.push(`${conv.sampleId} evidence recall ${cells.join(', ')}`);
    }
  }

  const columns: (Category | 'all')[] = [1, 2, 3, 4, 'all'];
  console.log(`| budget | metric | system | ${columns.map((c) => (c === 'all' ? 'overall' : CATEGORIES[c])).join(' | ')} |`);
  for (const budget of budgets) {
    for (const [metric, tally, tag] of [['evidence', evidence, 'e'], ['answer', answers, 'a']] as const) {
      for (const system of systems) {
        const cells = columns.map((c) => (tally.mean(`${budget}|${system}|${tag}`, c) * 100).toFixed(1));
        console.log(`| ${budget} | ${metric} | ${system} | ${cells.join(' | ')} |`);
      }
    }
  }
  for (const line of perConv) console.log(line);
  console.log(`bundles over budget or miscounted: ${overBudget}`);
}

if (require.main === module) main();
