/**
 * Interleaved context-latency A/B: `node dist/bench/quality/ab.js --main a/dist/src/main.js
 * [--main b/dist/src/main.js] [--engine pglite|postgres] [--budgets 500,1000,2000] [--passes 2]
 * [--data path] [--node-flag --trace-gc …]`.
 *
 * The machine's speed drifts up to 2× between runs (bench/README.md), so comparing two builds'
 * latency from two runs measures the drift as much as the builds. This starts every build named
 * (each `--main`; `--main here` or none for this checkout's own build) at once, each on its own
 * fresh database, ingests and compiles the same LoCoMo conversations into each, then asks every
 * question at every budget of each build in turn, alternating which build goes first, so any
 * drift lands on all of them alike. Prints p50 / p95 per build and budget, plus the full (major)
 * collections and the garbage-collection time per request each service reports in /metrics:
 * those pauses make the p95 tail, and their total is steadier than a percentile of one run.
 */
import { resolve } from 'node:path';
import { client } from '../common/http';
import { arg, args, DEFAULT_LOCOMO_PATH, pgAdminUrlArg, RunningService, startService } from '../common/service';
import { percentile } from '../common/stats';
import { ingestConversation } from './ingest';
import { Conversation, loadLocomo } from './metrics';

const log = (s: string) => process.stderr.write(`[ab] ${s}\n`);

/** Garbage collection so far, from the service's own /metrics (prom-client's GC histogram). */
async function gcSoFar(base: string): Promise<{ full: number; seconds: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const full = /nodejs_gc_duration_seconds_count\{[^}]*kind="major"[^}]*\}\s+(\d+)/.exec(text);
  const seconds = [...text.matchAll(/nodejs_gc_duration_seconds_sum\{[^}]*\}\s+([\d.e+-]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  return { full: full ? Number(full[1]) : NaN, seconds };
}

interface Build {
  name: string;
  svc: RunningService;
  api: ReturnType<typeof client>;
  latency: Map<number, number[]>;
  gcBefore: { full: number; seconds: number };
}

async function main(): Promise<void> {
  const here = resolve(__dirname, '..', '..', 'src', 'main.js');
  const mains = args('main').map((m) => (m === 'here' ? here : resolve(m)));
  if (mains.length === 0) mains.push(here);
  const budgets = (arg('budgets', '500,1000,2000') ?? '').split(',').map(Number);
  const passes = Number(arg('passes', '2'));
  if (budgets.some((b) => !(b > 0)) || !(passes >= 1)) throw new Error('--budgets takes positive numbers and --passes a count ≥ 1');
  const engine = arg('engine', 'pglite')!;
  const conversations: Conversation[] = loadLocomo(arg('data', DEFAULT_LOCOMO_PATH)!);
  // Node flags for every build's service, e.g. `--node-flag --trace-gc` to see its collections.
  const nodeFlags = args('node-flag');

  const builds: Build[] = [];
  try {
    for (const [i, main] of mains.entries()) {
      log(`starting build ${i + 1} on ${engine} from ${main}`);
      const svc = await startService({ pgAdminUrl: engine === 'postgres' ? pgAdminUrlArg() : undefined, main, nodeFlags });
      builds.push({ name: `${i + 1}: ${main}`, svc, api: client(svc.base), latency: new Map(budgets.map((b) => [b, []])), gcBefore: { full: 0, seconds: 0 } });
    }
    const run = `${Date.now()}`;
    const asks: { subjectId: string; question: string }[] = [];
    for (const conv of conversations) {
      const subjectId = `locomo/${conv.sampleId}/${run}`;
      for (const build of builds) await ingestConversation(build.api, subjectId, conv);
      for (const q of conv.questions) asks.push({ subjectId, question: q.question });
      log(`${conv.sampleId}: ${conv.turns.length} turns ingested and compiled into ${builds.length} build(s)`);
    }
    for (const build of builds) build.gcBefore = await gcSoFar(build.svc.base);

    let turn = 0;
    for (let pass = 1; pass <= passes; pass++) {
      for (const ask of asks) {
        for (const budget of budgets) {
          // Rotate who goes first, so neither build always meets a cache the other just warmed
          // (the database's, the kernel's) or always runs right after a GC of the other.
          const order = builds.map((_, k) => builds[(k + turn) % builds.length]);
          turn++;
          for (const build of order) {
            const t0 = performance.now();
            await build.api.call('POST', '/v1/context', { subject_id: ask.subjectId, task: ask.question, max_tokens: budget });
            build.latency.get(budget)!.push(performance.now() - t0);
          }
        }
      }
      log(`pass ${pass}/${passes}: ${asks.length} questions × ${budgets.length} budgets asked of each build`);
    }

    console.log(`\nInterleaved context latency on ${engine} (${asks.length} questions × ${passes} passes per budget), ms\n`);
    console.log(`| build | ${budgets.map((b) => `${b} p50 | ${b} p95`).join(' | ')} | full GCs | GC ms per request |`);
    console.log(`|${' --- |'.repeat(3 + 2 * budgets.length)}`);
    for (const build of builds) {
      const cells = budgets.flatMap((b) => {
        const sorted = [...build.latency.get(b)!].sort((x, y) => x - y);
        return [percentile(sorted, 50), percentile(sorted, 95)].map((x) => x.toFixed(1));
      });
      const gc = await gcSoFar(build.svc.base);
      const requests = asks.length * passes * budgets.length;
      console.log(`| ${build.name} | ${cells.join(' | ')} | ${gc.full - build.gcBefore.full} | ${((1000 * (gc.seconds - build.gcBefore.seconds)) / requests).toFixed(2)} |`);
    }
    const failed = builds.reduce((n, b) => n + b.api.errors, 0);
    if (failed > 0) throw new Error(`${failed} request(s) failed`);
  } finally {
    for (const build of builds) await build.svc.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`[ab] failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
