/**
 * CPU of the pure half of POST /v1/context, phase by phase: `npm run build && node
 * dist/bench/quality/assembly-time.js [--budget 1000] [--candidates 374] [--passes 3] [--data path]`.
 *
 * Each LoCoMo question of the development split is assembled from `--candidates` of its
 * conversation's compiled candidates (a fixed spread over the conversation, about the pool the
 * service fetches at that budget: 284 / 374 / 794 at 500 / 1,000 / 2,000 tokens), with the
 * service's word vectors, and the mean time of scoring, duplicate removal, selection and packing
 * is printed per request. The first pass warms the caches and the JIT and is not counted. No
 * database and no HTTP: run it under `node --cpu-prof` to see where ranking's time goes.
 */
import { wordVectors } from 'src/common/text/word-vectors';
import { byTimeThenSeq } from 'src/modules/context/assemble';
import { packContext } from 'src/modules/context/packing';
import { dropDuplicates, scoreCandidates, selectCandidates } from 'src/modules/context/ranking';
import { arg, DEFAULT_LOCOMO_PATH } from '../common/service';
import { loadLocomo } from './metrics';
import { askedAt, conversationCandidates } from './offline-eval';

function main(): void {
  const budget = Number(arg('budget', '1000'));
  const pool = Number(arg('candidates', '374'));
  const passes = Number(arg('passes', '3'));
  const vectors = wordVectors((err) => {
    throw err;
  });
  const conversations = loadLocomo(arg('data', DEFAULT_LOCOMO_PATH)!).map((conv) => ({
    conv,
    all: conversationCandidates(conv).candidates,
    now: askedAt(conv),
  }));
  const ms = { score: 0, dedupe: 0, select: 0, pack: 0 };
  let requests = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (const { conv, all, now } of conversations) {
      for (const q of conv.questions) {
        // A spread of the conversation that differs per question, as the fetch's does.
        const candidates = all.filter((_, i) => (i * 7919 + q.question.length) % all.length < pool);
        const t0 = performance.now();
        const scored = scoreCandidates(q.question, [...candidates].sort(byTimeThenSeq), { now, wordVectors: vectors });
        const t1 = performance.now();
        const ranked = dropDuplicates(scored);
        const t2 = performance.now();
        const selected = selectCandidates(ranked, { maxTokens: budget });
        const t3 = performance.now();
        packContext({ subjectId: conv.sampleId, task: q.question, maxTokens: budget, ranked: selected });
        const t4 = performance.now();
        if (pass === 0) continue;
        ms.score += t1 - t0;
        ms.dedupe += t2 - t1;
        ms.select += t3 - t2;
        ms.pack += t4 - t3;
        requests++;
      }
    }
  }
  const per = (x: number): string => (x / requests).toFixed(2);
  console.log(
    `budget ${budget}, ${pool} candidates, ${requests} requests, mean ms per request: scoring ${per(ms.score)}, duplicates ${per(ms.dedupe)}, selection ${per(ms.select)}, packing ${per(ms.pack)}`,
  );
}

if (require.main === module) main();
