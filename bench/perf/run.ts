/**
 * Performance benchmark: `npm run bench -- --scale small|medium|large [--engine pglite|postgres] [--base URL]`.
 * `--only receipts [--pairs N] [--signed]` runs just the receipt-cost scenario (a ~1,000-memory
 * subject, N interleaved pairs with and without `emit_receipt`; `--signed` configures a signing key).
 * `--only timeline [--calls N]` runs just the timeline of a 500-episode subject (the throughput
 * issue's side-by-side subject).
 * Starts the built service (or uses --base), loads deterministic synthetic support data, and
 * reports p50/p95/p99 and throughput per scenario as a table and a JSON file under bench/results/.
 * It measures and reports; it never fails on a slow figure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { client, load } from '../common/http';
import { arg, serviceUnderTest } from '../common/service';
import { summarise, Summary } from '../common/stats';
import { buildContextSubject, episodesFor, TASKS } from './data';

type Scale = 'small' | 'medium' | 'large';
const SCALES: Record<Scale, { ingest: number; batches: number; contextN: number; sizes: number[]; searchN: number; asyncJobs: number }> = {
  small: { ingest: 300, batches: 20, contextN: 60, sizes: [100, 1000], searchN: 60, asyncJobs: 5 },
  medium: { ingest: 2000, batches: 100, contextN: 200, sizes: [100, 1000, 10000], searchN: 200, asyncJobs: 20 },
  large: { ingest: 10000, batches: 300, contextN: 500, sizes: [100, 1000, 10000], searchN: 500, asyncJobs: 50 },
};

interface Row {
  scenario: string;
  summary?: Summary;
  value?: number | string;
  unit?: string;
}

async function main(): Promise<void> {
  const scale = (arg('scale', 'small') as Scale) ?? 'small';
  const cfg = SCALES[scale];
  if (!cfg) throw new Error(`unknown scale ${scale}`);
  const rows: Row[] = [];
  const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

  const only = arg('only');
  const receiptsOnly = only === 'receipts';
  const pairs = Number(arg('pairs', String(cfg.contextN)));
  const signed = process.argv.includes('--signed');
  const { base, svc } = await serviceUnderTest(
    log,
    signed ? { SERVICE_RECEIPT_SIGNING_KEYS: 'bench=a-benchmark-signing-secret-of-enough-length', SERVICE_RECEIPT_SIGNING_KEY_ID: 'bench' } : {},
  );
  if (svc) {
    rows.push({ scenario: 'cold start to /healthz', value: Math.round(svc.coldStartMs), unit: 'ms' });
    rows.push({ scenario: 'server RSS after start', value: svc.rssMb() ?? 'n/a', unit: 'MB' });
  }
  const api = client(base);
  const record = (scenario: string, r: { samples: number[]; wallMs: number }, units = 1) => {
    const summary = summarise(r.samples, r.wallMs, units);
    rows.push({ scenario, summary });
    log(`${scenario}: p50 ${summary.p50} ms, p95 ${summary.p95} ms, ${summary.throughput_per_s}/s`);
  };

  try {
    // Warm-up: JIT, connection pool, plans.
    const warm = episodesFor('bench-warmup', 50, 1);
    await load(50, 4, (i) => api.call('POST', '/v1/episodes', warm[i]));
    await api.call('POST', '/v1/memories/compile', { subject_id: 'bench-warmup' });
    await api.call('POST', '/v1/context', { subject_id: 'bench-warmup', task: TASKS[0] });

    if (only === 'timeline') {
      // The issue's side-by-side subject: 500 episodes compiled (~480 memories with the
      // synthetic data), the default timeline page read one request at a time.
      const sid = 'bench-timeline-500';
      const eps = episodesFor(sid, 500, 99);
      for (let i = 0; i < eps.length; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i, i + 100) });
      const compiled = await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: sid });
      rows.push({ scenario: `subject ${sid}: memories / episodes`, value: `${compiled.memories_created} / ${eps.length}` });
      await load(20, 1, () => api.call('GET', `/v1/timeline?subject_id=${sid}`));
      record('timeline 500 episodes (default page)', await load(Number(arg('calls', '200')), 1, () => api.call('GET', `/v1/timeline?subject_id=${sid}`)));
      const page = await api.call<{ episodes: unknown[]; memories: unknown[] }>('GET', `/v1/timeline?subject_id=${sid}`);
      rows.push({ scenario: 'timeline response: episodes / memories / JSON bytes', value: `${page.episodes.length} / ${page.memories.length} / ${Buffer.byteLength(JSON.stringify(page))}` });
    }

    if (!receiptsOnly && only !== 'timeline') {
      for (const c of [1, 8]) {
        const eps = episodesFor(`bench-ingest-c${c}`, cfg.ingest, 2 + c);
        record(`ingest single episode, concurrency ${c}`, await load(cfg.ingest, c, (i) => api.call('POST', '/v1/episodes', eps[i])));
      }
      const batchEps = episodesFor('bench-batch', cfg.batches * 100, 3);
      record('ingest batch of 100 (per episode throughput)', await load(cfg.batches, 2, (i) => api.call('POST', '/v1/episodes/batch', { episodes: batchEps.slice(i * 100, i * 100 + 100) })), 100);

      for (const n of [50, 500]) {
        const samples: number[] = [];
        const reps = 3;
        const t0 = performance.now();
        for (let r = 0; r < reps; r++) {
          const sid = `bench-compile-${n}-${r}`;
          const eps = episodesFor(sid, n, 10 + r);
          for (let i = 0; i < n; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i, i + 100) });
          const s = performance.now();
          await api.call('POST', '/v1/memories/compile', { subject_id: sid });
          samples.push(performance.now() - s);
        }
        record(`sync compile of ${n} new episodes`, { samples, wallMs: performance.now() - t0 });
      }

      {
        const samples: number[] = [];
        const t0 = performance.now();
        for (let j = 0; j < cfg.asyncJobs; j++) {
          const sid = `bench-async-${j}`;
          await api.call('POST', '/v1/episodes/batch', { episodes: episodesFor(sid, 50, 20 + j) });
          const s = performance.now();
          const job = await api.call<{ job_id: string }>('POST', '/v1/memories/compile', { subject_id: sid, async: true });
          for (;;) {
            const st = await api.call<{ status: string; error?: string }>('GET', `/v1/memories/compile/${job.job_id}`);
            if (st.status === 'completed') break;
            if (st.status === 'failed') throw new Error(`async job failed: ${st.error}`);
            await new Promise((r) => setTimeout(r, 5));
          }
          samples.push(performance.now() - s);
        }
        record('async compile (50 episodes), submit to completed', { samples, wallMs: performance.now() - t0 });
      }
    }

    for (const size of only === 'timeline' ? [] : receiptsOnly ? [1000] : cfg.sizes) {
      const sid = `bench-ctx-${size}`;
      log(`building subject with ~${size} memories`);
      const { memories, episodes } = await buildContextSubject(api, sid, size);
      rows.push({ scenario: `subject ${sid}: memories / episodes`, value: `${memories} / ${episodes}` });
      for (const budget of receiptsOnly ? [] : [1000, 4000]) {
        for (const c of [1, 8]) {
          record(
            `context ~${size} memories, budget ${budget}, concurrency ${c}`,
            await load(cfg.contextN, c, (i) => api.call('POST', '/v1/context', { subject_id: sid, task: TASKS[i % TASKS.length], max_tokens: budget })),
          );
        }
      }
      if (size === 1000) {
        // What a receipt adds to the context path (docs/governance.md): the same requests with and
        // without emit_receipt, interleaved one by one so the machine's drift hits both alike.
        const withReceipt: number[] = [];
        const without: number[] = [];
        let lastReceipt: string | null = null;
        const t0 = performance.now();
        for (let i = 0; i < pairs * 2; i++) {
          const receipt = i % 2 === 1;
          const body = { subject_id: sid, task: TASKS[(i >> 1) % TASKS.length], max_tokens: 4000, ...(receipt ? { emit_receipt: true } : {}) };
          const s = performance.now();
          const res = await api.call<{ receipt_id: string | null }>('POST', '/v1/context', body);
          (receipt ? withReceipt : without).push(performance.now() - s);
          if (res.receipt_id) lastReceipt = res.receipt_id;
        }
        const half = (performance.now() - t0) / 2;
        record(`context ~${size} memories, budget 4000, no receipt (interleaved)`, { samples: without, wallMs: half });
        record(`context ~${size} memories, budget 4000, emit_receipt${signed ? ' (signed)' : ''} (interleaved)`, { samples: withReceipt, wallMs: half });
        const p95 = (xs: number[]) => summarise(xs, half).p95;
        const p50 = (xs: number[]) => summarise(xs, half).p50;
        if (lastReceipt) {
          const receipt = await api.call<{ selected_entries: unknown[] }>('GET', `/v1/receipts/${lastReceipt}`);
          rows.push({ scenario: 'receipt body: entries / JSON bytes', value: `${receipt.selected_entries.length} / ${Buffer.byteLength(JSON.stringify(receipt))}` });
        }
        rows.push({ scenario: 'receipt cost: p50 / p95 added', value: `${(p50(withReceipt) - p50(without)).toFixed(2)} / ${(p95(withReceipt) - p95(without)).toFixed(2)}`, unit: 'ms' });
      }
      if (receiptsOnly) continue;
      const q = encodeURIComponent('export');
      record(`text search ~${size} memories`, await load(cfg.searchN, 1, () => api.call('GET', `/v1/memories/search?subject_id=${sid}&q=${q}&limit=20`)));
      record(`semantic search ~${size} memories`, await load(cfg.searchN, 1, (i) => api.call('GET', `/v1/memories/search?subject_id=${sid}&q=${encodeURIComponent(TASKS[i % TASKS.length])}&semantic=true&limit=20`)));
      record(`timeline ~${size} memories`, await load(Math.max(5, Math.floor(cfg.searchN / 10)), 1, () => api.call('GET', `/v1/timeline?subject_id=${sid}`)));
    }

    if (!only) {
      const sid = 'bench-delete';
      // About 0.79 memories per synthetic episode: 1,300 episodes give a subject of ~1,000 memories.
      const eps = episodesFor(sid, 1300, 77);
      for (let i = 0; i < eps.length; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i, i + 100) });
      const compiled = await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: sid });
      const s = performance.now();
      const del = await api.call<{ memories_deleted: number }>('DELETE', `/v1/subjects/${sid}`);
      rows.push({ scenario: `delete subject (${del.memories_deleted} memories, ${eps.length} episodes)`, value: Math.round(performance.now() - s), unit: 'ms' });
      log(`compiled ${compiled.memories_created} memories for delete`);
    }
    if (svc) rows.push({ scenario: 'server RSS after run', value: svc.rssMb() ?? 'n/a', unit: 'MB' });
  } finally {
    if (svc) await svc.stop();
  }

  printTable(rows);
  if (api.errors > 0) log(`ERRORS: ${api.errors} requests failed`);
  const outDir = resolve(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const engine = svc?.engine ?? 'external';
  const file = join(outDir, `perf-${only ?? scale}-${engine}.json`);
  writeFileSync(file, JSON.stringify({ scale, engine, date: new Date().toISOString(), node: process.version, rows }, null, 2));
  log(`wrote ${file}`);
}

function printTable(rows: Row[]): void {
  const lines = ['| scenario | p50 ms | p95 ms | p99 ms | throughput/s | value |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const s = r.summary;
    lines.push(`| ${r.scenario} | ${s?.p50 ?? ''} | ${s?.p95 ?? ''} | ${s?.p99 ?? ''} | ${s?.throughput_per_s ?? ''} | ${r.value !== undefined ? `${r.value} ${r.unit ?? ''}` : ''} |`);
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
