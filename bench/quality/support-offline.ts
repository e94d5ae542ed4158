/**
 * The support scenario set (support.ts) without server or database, in about a second: each
 * customer's conversation is ingested as one batch would be (one `created_at`, episodes in
 * sequence), compiled with the heuristic compiler, and every task is answered by the service's
 * own assembly (assemble.ts) over every candidate. The service fetches a bounded subset by SQL;
 * a support customer's thirty-odd episodes fit in it whole, so the figures match the service's
 * up to ties. `--show` prints each bundle that misses an expected string. Ranking expands the
 * task's words with the vendored word vectors, as the service does; `--without-word-vectors`
 * ranks by the task's words alone.
 *
 * Usage (after `npm run build`): node dist/bench/quality/support-offline.js [--show] [--without-word-vectors]
 */
import type { CompilerEpisode } from 'src/compiler/compiler.types';
import { wordVectors } from 'src/common/text/word-vectors';
import { assembleContext } from 'src/modules/context/assemble';
import type { ContextCandidate } from 'src/modules/context/ranking';
import { compiledCandidates } from './candidates';
import { supportConversation, supportCustomers, supportRecall, supportTasks } from './support';

const BUDGETS = [300, 800, 4000];
const KINDS = ['integration', 'reply', 'open-ticket', 'resolved-ticket', 'all'];

/** One customer's candidates as the service would hold them after a batch ingest and a compile. */
export function supportCandidates(episodes: Record<string, unknown>[], at: Date): ContextCandidate[] {
  const compiled: CompilerEpisode[] = episodes.map((e, i) => ({
    id: `e${i}`,
    session_id: e.session_id as string,
    source: e.source as string,
    type: e.type as string,
    payload: e.payload,
    metadata: {},
    created_at: at,
  }));
  return compiledCandidates(compiled);
}

function main(): void {
  const show = process.argv.includes('--show');
  const vectors = process.argv.includes('--without-word-vectors')
    ? null
    : wordVectors((err) => {
        throw err;
      });
  const at = new Date(Date.UTC(2026, 10, 1, 12));
  const now = new Date(at.getTime() + 3600_000);
  const sums = new Map<string, { sum: number; n: number }>();
  for (const customer of supportCustomers()) {
    const subject = customer.id;
    const candidates = supportCandidates(supportConversation(customer, subject), at);
    for (const task of supportTasks(customer, subject)) {
      for (const budget of BUDGETS) {
        const packed = assembleContext(subject, task.task, candidates, { maxTokens: budget, now, wordVectors: vectors });
        const next = packed.assembled_context.indexOf('\n## ', 1);
        const value = supportRecall(task.expected, next < 0 ? '' : packed.assembled_context.slice(next));
        for (const key of [`${budget}|${task.kind}`, `${budget}|all`]) {
          const cell = sums.get(key) ?? { sum: 0, n: 0 };
          cell.sum += value;
          cell.n += 1;
          sums.set(key, cell);
        }
        if (show && value < 1) console.log(`--- ${subject} ${task.kind} @${budget} (${(value * 100).toFixed(0)}%, expected ${task.expected.join(' / ')})\n${packed.assembled_context}\n`);
      }
    }
  }
  const pct = (key: string) => {
    const cell = sums.get(key);
    return cell ? ((cell.sum / cell.n) * 100).toFixed(1) : 'n/a';
  };
  console.log(`| budget | ${KINDS.join(' | ')} |`);
  for (const budget of BUDGETS) console.log(`| ${budget} | ${KINDS.map((k) => pct(`${budget}|${k}`)).join(' | ')} |`);
}

if (require.main === module) main();
