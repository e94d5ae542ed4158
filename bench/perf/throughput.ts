/**
 * Throughput benchmark (issue 22): `npm run build && node dist/bench/perf/throughput.js
 * [--ingest 1200] [--context 240] [--pg-admin-url URL]`. PostgreSQL only (SERVICE_WORKERS > 1
 * needs it). In one run, with two services up side by side on fresh databases:
 *
 * 1. single-episode ingest (POST /v1/episodes) at concurrency 1, 8 and 32 with group commit on
 *    (SERVICE_INGEST_GROUP_COMMIT=true) vs off;
 * 2. context (POST /v1/context, ~425 memories, budget 1,000) at concurrency 1 and 8 with
 *    SERVICE_WORKERS=1 vs 2.
 *
 * The two sides of each comparison are measured in alternating slices (A B, B A, A B, B A) so the drift
 * of a shared machine hits both alike; the figures that mean something are the ratios within one
 * run. Writes bench/results/throughput-postgres.json. Measures and reports; never fails on a figure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { client, Client, load } from '../common/http';
import { arg, RunningService, startService } from '../common/service';
import { summarise, Summary } from '../common/stats';
import { episodesFor, TASKS } from './data';

const SLICES = 4;

interface Result {
  comparison: string;
  side: string;
  concurrency: number;
  summary: Summary;
}

const log = (s: string) => process.stderr.write(`[throughput] ${s}\n`);

/** `total` calls at `concurrency` against each side, in alternating slices; per-side samples and wall time. */
async function alternate(sides: { name: string; run: (n: number, c: number, offset: number) => Promise<{ samples: number[]; wallMs: number }> }[], total: number, concurrency: number): Promise<Map<string, Summary>> {
  const acc = new Map(sides.map((s) => [s.name, { samples: [] as number[], wallMs: 0 }]));
  const per = Math.ceil(total / SLICES);
  for (let slice = 0; slice < SLICES; slice++) {
    for (const side of slice % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await side.run(per, concurrency, slice * per);
      const a = acc.get(side.name)!;
      a.samples.push(...r.samples);
      a.wallMs += r.wallMs;
    }
  }
  return new Map([...acc].map(([name, a]) => [name, summarise(a.samples, a.wallMs)]));
}

/** memory_ingest_group_size's count and sum, from /metrics (text). */
async function groups(base: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const pick = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: pick('memory_ingest_group_size_count'), sum: pick('memory_ingest_group_size_sum') };
}

async function main(): Promise<void> {
  const pgAdminUrl = arg('pg-admin-url', process.env.BENCH_PG_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres')!;
  const ingestN = Number(arg('ingest', '1200'));
  const contextN = Number(arg('context', '240'));
  const results: Result[] = [];
  const groupSizes: Record<number, number> = {};
  const services: RunningService[] = [];
  const start = async (env: Record<string, string>) => {
    const svc = await startService({ pgAdminUrl, env });
    services.push(svc);
    return svc;
  };
  try {
    // 1. Group commit on vs off, one worker each.
    log('ingest: starting two services (group commit on, off)');
    const onBase = (await start({ SERVICE_INGEST_GROUP_COMMIT: 'true' })).base;
    const on = client(onBase);
    const off = client((await start({ SERVICE_INGEST_GROUP_COMMIT: 'false' })).base);
    const ingestSide = (name: string, api: Client) => ({
      name,
      run: (n: number, c: number, offset: number) => {
        const eps = episodesFor(`ingest-${name}-c${c}`, offset + n, 5 + c).slice(offset);
        return load(n, c, (i) => api.call('POST', '/v1/episodes', eps[i]));
      },
    });
    for (const api of [on, off]) {
      const warm = episodesFor('warm', 200, 1);
      await load(200, 8, (i) => api.call('POST', '/v1/episodes', warm[i]));
    }
    for (const c of [1, 8, 32]) {
      const before = await groups(onBase);
      const by = await alternate([ingestSide('group commit on', on), ingestSide('group commit off', off)], ingestN, c);
      const after = await groups(onBase);
      const mean = Math.round(((after.sum - before.sum) / Math.max(1, after.count - before.count)) * 100) / 100;
      log(`ingest c${c}: mean group size ${mean} (requests per commit, group commit on)`);
      groupSizes[c] = mean;
      for (const [side, summary] of by) {
        results.push({ comparison: 'single-episode ingest', side, concurrency: c, summary });
        log(`ingest c${c} ${side}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
      }
    }
    while (services.length) await services.pop()!.stop();

    // 2. Context with one worker vs two.
    log('context: starting two services (SERVICE_WORKERS=1, 2)');
    const one = client((await start({ SERVICE_WORKERS: '1' })).base);
    const two = client((await start({ SERVICE_WORKERS: '2' })).base);
    const sid = 'bench-ctx';
    const eps = episodesFor(sid, 500, 99);
    let memories = 0;
    for (const api of [one, two]) {
      for (let i = 0; i < eps.length; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i, i + 100) });
      memories = (await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: sid })).memories_created;
      await load(40, 8, (i) => api.call('POST', '/v1/context', { subject_id: sid, task: TASKS[i % TASKS.length], max_tokens: 1000 }));
    }
    log(`context subject: ${memories} memories from ${eps.length} episodes`);
    const contextSide = (name: string, api: Client) => ({
      name,
      run: (n: number, c: number) => load(n, c, (i) => api.call('POST', '/v1/context', { subject_id: sid, task: TASKS[i % TASKS.length], max_tokens: 1000 })),
    });
    for (const c of [1, 8]) {
      const by = await alternate([contextSide('SERVICE_WORKERS=1', one), contextSide('SERVICE_WORKERS=2', two)], contextN, c);
      for (const [side, summary] of by) {
        results.push({ comparison: `context (~${memories} memories, budget 1000)`, side, concurrency: c, summary });
        log(`context c${c} ${side}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
      }
    }
  } finally {
    while (services.length) await services.pop()!.stop();
  }

  const lines = ['| comparison | side | concurrency | p50 ms | p95 ms | p99 ms | throughput/s |', '|---|---|---|---|---|---|---|'];
  for (const r of results) lines.push(`| ${r.comparison} | ${r.side} | ${r.concurrency} | ${r.summary.p50} | ${r.summary.p95} | ${r.summary.p99} | ${r.summary.throughput_per_s} |`);
  lines.push('', `mean requests per commit with group commit on: ${Object.entries(groupSizes).map(([c, m]) => `c${c} ${m}`).join(', ')}`);
  process.stdout.write(lines.join('\n') + '\n');
  const outDir = resolve(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'throughput-postgres.json');
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, ingestN, contextN, groupSizes, results }, null, 2));
  log(`wrote ${file}`);
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
