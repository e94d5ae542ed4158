/**
 * Two builds' ingest CPU side by side under the same load (issue 22): `npm run build && node
 * dist/bench/perf/ingest-pair.js --a path/to/dist/src/main.js [--b path/to/dist/src/main.js]
 * [--batch 100] [--conc 8] [--slices 8] [--slice 400] [--sessions false] [--engine pglite]
 * [--pg-admin-url URL]`. PostgreSQL by default (each side on its own fresh database); `--engine
 * pglite` gives each side its own embedded data directory.
 *
 * On a machine shared with other work, CPU per request drifts by ±10% from one minute to the
 * next, more than a change to the request path moves it; runs of one build after the other
 * (ingest-cost.js `--main`) then compare the load as much as the builds. This starts both services
 * at once (build A, and B, default this checkout's build), each on its own fresh database with an
 * API key that every request presents, warms both, then sends them alternating slices of requests
 * (A B, B A, A B …: `--slices` pairs of `--slice` requests) so the drift hits both alike, and
 * prints each side's service CPU per request (utime + stime of its process, from /proc), its rate
 * and latency, and B ÷ A. Single-episode requests (`POST /v1/episodes`) at `--conc` 8 by default;
 * `--batch N` sends batches of N (`POST /v1/episodes/batch`) at concurrency 2 and also prints CPU
 * per episode. `--sessions false` sends the episodes without session ids: no health
 * recomputation is marked, so the figures are the requests' own cost (with sessions, the
 * coalesced recomputation's cost varies with timing and dominates the difference). Run it twice
 * with A and B swapped; a change smaller than the two runs' disagreement is not measured.
 */
import { resolve } from 'node:path';
import { client, load } from '../common/http';
import { arg, cpuMs, pgAdminUrlArg, RunningService, startService } from '../common/service';
import { summarise } from '../common/stats';
import { episodesFor } from './data';

async function main(): Promise<void> {
  const a = arg('a');
  if (!a) throw new Error('--a path/to/dist/src/main.js is required');
  const b = arg('b', resolve(__dirname, '..', '..', 'src', 'main.js'))!;
  const engine = arg('engine', 'postgres')!;
  if (!['postgres', 'pglite'].includes(engine)) throw new Error('--engine is postgres or pglite');
  const pgAdminUrl = engine === 'postgres' ? pgAdminUrlArg() : undefined;
  const batch = Number(arg('batch', '0'));
  const conc = Number(arg('conc', batch > 0 ? '2' : '8'));
  const slices = Number(arg('slices', '8'));
  const slice = Number(arg('slice', batch > 0 ? '30' : '400'));
  const sessions = arg('sessions', 'true') !== 'false';
  const apiKey = 'ingest-pair-bench-key';
  const services: RunningService[] = [];
  const sides = [a, b].map(() => ({ cpu: 0, n: 0, samples: [] as number[], wallMs: 0 }));
  try {
    for (const main of [a, b]) services.push(await startService({ pgAdminUrl, main, env: { SERVICE_API_KEY: apiKey } }));
    const apis = services.map((s) => client(s.base, { 'x-api-key': apiKey }));
    const per = Math.max(batch, 1);
    const warm = batch > 0 ? 20 : 400;
    const eps = episodesFor('ingest-pair', (slices * slice + warm) * per, 11).map((e) => (sessions ? e : { ...e, session_id: undefined }));
    // Each side sends the same episodes in the same order, to its own database.
    const next = [0, 0];
    const send = (k: number) => {
      const i = next[k]++;
      return batch > 0 ? apis[k].call('POST', '/v1/episodes/batch', { episodes: eps.slice(i * batch, (i + 1) * batch) }) : apis[k].call('POST', '/v1/episodes', eps[i]);
    };
    for (const k of [0, 1]) await load(warm, conc, () => send(k));
    for (let s = 0; s < slices; s++) {
      for (const k of s % 2 === 0 ? [0, 1] : [1, 0]) {
        const c0 = cpuMs(services[k].pid!);
        const r = await load(slice, conc, () => send(k));
        const side = sides[k];
        side.cpu += cpuMs(services[k].pid!) - c0;
        side.n += slice;
        side.samples.push(...r.samples);
        side.wallMs += r.wallMs;
      }
    }
  } finally {
    for (const s of services) await s.stop();
  }
  const out = sides.map((s, k) => {
    const summary = summarise(s.samples, s.wallMs);
    const cpu = s.cpu / s.n;
    return { build: k === 0 ? `A ${a}` : `B ${b}`, service_cpu_ms_per_request: Math.round(cpu * 1000) / 1000, ...(batch > 0 ? { service_cpu_ms_per_episode: Math.round((cpu / batch) * 10000) / 10000 } : {}), rate_per_s: summary.throughput_per_s, p50: summary.p50, p99: summary.p99 };
  });
  const ratio = Math.round((out[1].service_cpu_ms_per_request / out[0].service_cpu_ms_per_request) * 1000) / 1000;
  process.stdout.write(`${engine}: ${batch > 0 ? `batches of ${batch}` : 'single episodes'} at concurrency ${conc}, ${slices} slices of ${slice} per side, ${sessions ? 'with' : 'without'} sessions\n`);
  for (const o of out) process.stdout.write(`${o.build}: service CPU ${o.service_cpu_ms_per_request} ms per request, ${o.rate_per_s}/s, p50 ${o.p50} p99 ${o.p99} ms\n`);
  process.stdout.write(`B ÷ A service CPU per request: ${ratio}\n${JSON.stringify({ engine, batch, conc, slices, slice, sessions, out, ratio })}\n`);
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
