/**
 * Two builds' context cost side by side under the same load: `npm run build && node
 * dist/bench/perf/context-pair.js --a path/to/dist/src/main.js [--b path/to/dist/src/main.js]
 * [--memories 1000] [--budget 4000] [--slices 8] [--slice 60] [--conc 1] [--receipt both|b]
 * [--engine pglite] [--pg-admin-url URL]`. PostgreSQL by default (each side on its own fresh
 * database); `--engine pglite` gives each side its own embedded data directory.
 *
 * The counterpart of ingest-pair.js for POST /v1/context: on a shared machine, one build's run
 * after the other's compares the load more than the builds. Both services start at once, each
 * on its own fresh database, get the same subject (the perf bench's episodes, compiled until it
 * holds `--memories` memories), are warmed, then answer alternating slices of the same context
 * requests, one at a time by default (A B, B A, A B …), so the drift hits both alike. Prints each side's
 * service CPU per request (utime + stime from /proc, which includes garbage collection), p50
 * and p95, and B ÷ A. `--conc N` keeps N requests in flight within each slice and adds each
 * side's throughput (requests per second of its slices' wall time). `--receipt both` asks every
 * request for a receipt; `--receipt b` only B's, which with `--b` the same build as `--a`
 * measures what a receipt adds (B − A), each process paying its own garbage collection
 * (interleaving both kinds of request in one process, as run.js does, lets one kind pay for
 * collections the other's garbage caused). Run it twice with A and B swapped; a change smaller
 * than the two runs' disagreement is not measured. Also prints the disk's flush latency (8 kB
 * write + fdatasync beside the database's data) before and after the slices: a durable receipt
 * waits for its commit's WAL flush, so that is the floor under what a receipt adds at p95.
 */
import { resolve } from 'node:path';
import { client } from '../common/http';
import { arg, cpuMs, pgAdminUrlArg, RunningService, startService } from '../common/service';
import { tmpdir } from 'node:os';
import { databaseDiskDir, flushLatency } from '../common/disk';
import { round2, summarise, Summary } from '../common/stats';
import { buildContextSubject, TASKS } from './data';

async function main(): Promise<void> {
  const a = arg('a');
  if (!a) throw new Error('--a path/to/dist/src/main.js is required');
  const b = arg('b', resolve(__dirname, '..', '..', 'src', 'main.js'))!;
  const engine = arg('engine', 'postgres')!;
  if (!['postgres', 'pglite'].includes(engine)) throw new Error('--engine is postgres or pglite');
  const pgAdminUrl = engine === 'postgres' ? pgAdminUrlArg() : undefined;
  const memories = Number(arg('memories', '1000'));
  const budget = Number(arg('budget', '4000'));
  const slices = Number(arg('slices', '8'));
  const slice = Number(arg('slice', '60'));
  const conc = Number(arg('conc', '1'));
  if (!Number.isInteger(conc) || conc < 1) throw new Error('--conc is a whole number of requests in flight, at least 1');
  const receipt = arg('receipt', 'none')!;
  if (!['none', 'both', 'b'].includes(receipt)) throw new Error('--receipt is none, both or b');
  const asks = (k: number) => receipt === 'both' || (receipt === 'b' && k === 1);
  const log = (line: string) => process.stderr.write(`[context-pair] ${line}\n`);
  const services: RunningService[] = [];
  const sides = [a, b].map(() => ({ cpu: 0, n: 0, samples: [] as number[], wallMs: 0 }));
  const sid = 'context-pair';
  // The disk's flush latency before and after the slices: the floor under a durable receipt's
  // commit in this run (PGlite's data directories are in the temporary folder).
  const diskDir = pgAdminUrl ? await databaseDiskDir(pgAdminUrl) : tmpdir();
  const flush: Summary[] = [];
  try {
    for (const main of [a, b]) services.push(await startService({ pgAdminUrl, main }));
    const apis = services.map((s) => client(s.base));
    for (const [k, api] of apis.entries()) {
      log(`building the subject on ${k === 0 ? 'A' : 'B'}`);
      await buildContextSubject(api, sid, memories);
    }
    const next = [0, 0];
    const send = (k: number) => {
      const i = next[k]++;
      return apis[k].call('POST', '/v1/context', { subject_id: sid, task: TASKS[i % TASKS.length], max_tokens: budget, ...(asks(k) ? { emit_receipt: true } : {}) });
    };
    for (const k of [0, 1]) for (let i = 0; i < 60; i++) await send(k);
    if (diskDir) flush.push(flushLatency(diskDir));
    for (let s = 0; s < slices; s++) {
      for (const k of s % 2 === 0 ? [0, 1] : [1, 0]) {
        const side = sides[k];
        const c0 = cpuMs(services[k].pid!);
        const t0 = performance.now();
        let left = slice;
        const lane = async () => {
          while (left-- > 0) {
            const started = performance.now();
            await send(k);
            side.samples.push(performance.now() - started);
          }
        };
        await Promise.all(Array.from({ length: conc }, lane));
        side.wallMs += performance.now() - t0;
        side.cpu += cpuMs(services[k].pid!) - c0;
        side.n += slice;
      }
    }
    if (diskDir) flush.push(flushLatency(diskDir));
  } finally {
    for (const s of services) await s.stop();
  }
  const out = sides.map((s, k) => {
    const summary = summarise(s.samples, s.wallMs);
    return {
      build: k === 0 ? `A ${a}` : `B ${b}`,
      service_cpu_ms_per_request: Math.round((s.cpu / s.n) * 1000) / 1000,
      p50: summary.p50,
      p95: summary.p95,
      per_second: Math.round((s.n / s.wallMs) * 1000 * 10) / 10,
    };
  });
  const ratio = (x: number, y: number) => Math.round((x / y) * 1000) / 1000;
  process.stdout.write(`context on ${engine}, ~${memories} memories, budget ${budget}, receipts: ${receipt}, concurrency ${conc}, ${slices} slices of ${slice} per side\n`);
  for (const o of out) process.stdout.write(`${o.build}: service CPU ${o.service_cpu_ms_per_request} ms per request, p50 ${o.p50} p95 ${o.p95} ms, ${o.per_second}/s\n`);
  const cpu = ratio(out[1].service_cpu_ms_per_request, out[0].service_cpu_ms_per_request);
  process.stdout.write(`B ÷ A: service CPU per request ${cpu}, p50 ${ratio(out[1].p50, out[0].p50)}, p95 ${ratio(out[1].p95, out[0].p95)}, throughput ${ratio(out[1].per_second, out[0].per_second)}\n`);
  const minus = (x: number, y: number) => round2(x - y);
  process.stdout.write(`B − A: service CPU per request ${minus(out[1].service_cpu_ms_per_request, out[0].service_cpu_ms_per_request)} ms, p50 ${minus(out[1].p50, out[0].p50)} ms, p95 ${minus(out[1].p95, out[0].p95)} ms\n`);
  const disk = flush.map((f) => ({ p50: f.p50, p95: f.p95, p99: f.p99 }));
  if (disk.length === 2) {
    process.stdout.write(`disk flush (8 kB write + fdatasync beside the database's data): before p50 ${disk[0].p50} p95 ${disk[0].p95} ms, after p50 ${disk[1].p50} p95 ${disk[1].p95} ms\n`);
  } else {
    process.stdout.write('disk flush: not measured (the database is not on a disk this process can write beside)\n');
  }
  process.stdout.write(`${JSON.stringify({ engine, memories, budget, receipt, slices, slice, conc, out, cpu_ratio: cpu, disk_flush_ms: disk })}\n`);
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
