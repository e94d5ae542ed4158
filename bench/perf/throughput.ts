/**
 * Throughput benchmark (issue 22): `npm run build && node dist/bench/perf/throughput.js
 * [--ingest 2400] [--batches 200] [--warm 2000] [--context 240] [--pg-admin-url URL] [--no-replica] [--pgbench-seconds 8] [--open]`. PostgreSQL only (SERVICE_WORKERS > 1
 * needs it). In one run, with two services up side by side on fresh databases, each started
 * with an API key that every request presents, as a deployment under load runs (`--open`: open
 * access, where every request without a key asks the database whether any key exists):
 *
 * 0. the database's own ceiling: pgbench inserting the same episode row into the migrated
 *    `episodes` table (its indexes, generated tsvector and trigger), 1 row per transaction at 1, 8
 *    and 32 clients and 100 rows per transaction at 1 and 2 clients, before the ingest figures of
 *    1 and again after them; every ingest figure below is also reported as a share of the mean
 *    of the two matching pgbench rates (and of each, so a machine that drifted shows);
 * 1. single-episode ingest (POST /v1/episodes) at concurrency 1, 8 and 32 with group commit on
 *    (SERVICE_INGEST_GROUP_COMMIT=true) vs off, and batch ingest (100 per request) at 1 and 2,
 *    with the CPU a batch costs (service, database backends, this client and the whole machine)
 *    against the machine's CPU per pgbench 100-row transaction: at that cost, with every core
 *    busy, what share of pgbench's rate batches could reach at most;
 * 2. with SERVICE_WORKERS=1 vs 2: context (POST /v1/context, ~425 memories, budget 1,000) at
 *    concurrency 1 and 8, and single-episode ingest at 8 and 32; plus the CPU one context request
 *    costs at concurrency 1 (service processes, database backends and this client, from /proc),
 *    which bounds what concurrency can gain: cores × wall / CPU;
 * 3. (`--replica`, on by default) context at concurrency 8 served by the primary alone vs with a
 *    streaming replica (a private PostgreSQL cluster and its pg_basebackup standby, torn down).
 *
 * Every service is warmed before it is measured (`--warm` single episodes at concurrency 8, twice as
 * many at 1, 20 batches and a `/metrics` read, on subjects of their own, the two services of a
 * comparison taking turns; a tenth as many context requests): a process that has just
 * started runs its code unoptimised for its first thousand or so requests, and measuring them
 * measured the compiler, not the service (at 200 warm-up requests the c8 ingest slices cost
 * 1.2–1.9 ms of service CPU per request, at 2,000 about 0.6).
 *
 * The two sides of each comparison are measured in alternating slices (A B, B A, A B, B A) so the drift
 * of a shared machine hits both alike; the figures that mean something are the ratios within one
 * run. Writes bench/results/throughput-postgres.json. Measures and reports; never fails on a figure.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { Client as PgClient } from 'pg';
import { PrivatePostgres } from '../../test/support/private-pg';
import { createThrowawayDb } from '../../test/support/throwaway-db';
import { client, Client, load } from '../common/http';
import { arg, cpuMs, machineCpuMs, pgAdminUrlArg, RunningService, startService } from '../common/service';
import { round2, summarise, Summary } from '../common/stats';
import { episodesFor, TASKS } from './data';

const SLICES = 4;
const OPEN = process.argv.includes('--open');
const API_KEY = 'throughput-bench-key';
const AUTH: Record<string, string> = OPEN ? {} : { 'x-api-key': API_KEY };
/** A client of a bench service, presenting its key. */
const connect = (base: string): Client => client(base, AUTH);
/** The i-th context request of the load on `subjectId`: the tasks in turn, budget 1,000. */
const askContext = (api: Client, subjectId: string) => (i: number) => api.call('POST', '/v1/context', { subject_id: subjectId, task: TASKS[i % TASKS.length], max_tokens: 1000 });

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
    // Each slice's rates are logged: a ratio that one slice made (the machine stalled during it)
    // shows there, where the run's totals hide it.
    const rates: string[] = [];
    for (const side of slice % 2 === 0 ? sides : [...sides].reverse()) {
      const r = await side.run(per, concurrency, slice * per);
      const a = acc.get(side.name)!;
      a.samples.push(...r.samples);
      a.wallMs += r.wallMs;
      rates.push(`${side.name} ${Math.round((r.samples.length / r.wallMs) * 1000)}/s`);
    }
    log(`  c${concurrency} slice ${slice + 1}/${SLICES}: ${rates.join(', ')}`);
  }
  return new Map([...acc].map(([name, a]) => [name, summarise(a.samples, a.wallMs)]));
}

/**
 * pgbench's committed transactions per second for `statement` at `clients` (the rate without
 * connection set-up), run for `seconds` against `dbUrl`, and the machine's CPU per transaction
 * meanwhile (pgbench, PostgreSQL and whatever else runs: nothing else of this bench does; its
 * backends exit with it, so only the machine's total sees their CPU).
 */
function pgbench(dbUrl: string, statement: string, clients: number, seconds: number): { tps: number; cpuMs: number } {
  const script = join(tmpdir(), `memsvc-pgbench-${process.pid}-${clients}-${Date.now()}.sql`);
  writeFileSync(script, `${statement}\n`);
  const u = new URL(dbUrl);
  const m0 = machineCpuMs();
  const r = spawnSync(
    'pgbench',
    ['-n', '-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres'), '-f', script, '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds), u.pathname.slice(1)],
    { encoding: 'utf8' },
  );
  const cpu = machineCpuMs() - m0;
  rmSync(script, { force: true });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(r.stdout ?? '');
  const processed = /actually processed: (\d+)/.exec(r.stdout ?? '');
  if (r.status !== 0 || !tps || !processed) throw new Error(`pgbench failed (${r.status}): ${r.stderr || r.stdout}`);
  return { tps: Number(tps[1]), cpuMs: cpu / Number(processed[1]) };
}

/** The service's processes (its primary and any workers) and its database's backends. */
async function processesOf(svc: RunningService): Promise<{ service: number[]; database: number[] }> {
  const children = spawnSync('pgrep', ['-P', String(svc.pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  const c = new PgClient({ connectionString: svc.databaseUrl! });
  await c.connect();
  try {
    const rows = (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows;
    return { service: [svc.pid!, ...children], database: rows.map((r) => r.pid) };
  } finally {
    await c.end();
  }
}

/**
 * CPU spent per request by the service, its database backends and this client while `run` makes
 * `n` requests one at a time, and what that allows: with every core busy, concurrency can at most
 * multiply the one-at-a-time rate by cores × wall / CPU (a request that keeps more than one core
 * busy for its whole wall time leaves less than the cores' count to gain).
 */
async function cpuPerRequest<R extends { wallMs: number }>(svc: RunningService, n: number, run: () => Promise<R>) {
  const procs = await processesOf(svc);
  const sum = (pids: number[]) => pids.reduce((t, pid) => t + cpuMs(pid), 0);
  const s0 = sum(procs.service), d0 = sum(procs.database), c0 = process.cpuUsage(), m0 = machineCpuMs();
  const result = await run();
  const client = process.cpuUsage(c0);
  const service = (sum(procs.service) - s0) / n, database = (sum(procs.database) - d0) / n, bench = (client.user + client.system) / 1000 / n;
  const machine = (machineCpuMs() - m0) / n;
  const wall = result.wallMs / n;
  const cost = { service_ms: round2(service), database_ms: round2(database), client_ms: round2(bench), machine_ms: round2(machine), wall_ms: round2(wall), cores: availableParallelism(), ceiling: round2((availableParallelism() * wall) / (service + database + bench)) };
  return { cost, result };
}

/**
 * Runs the ingest paths until the services' code is optimised, on subjects no measurement uses:
 * `n` single episodes at concurrency 8, `2n` at concurrency 1 and 20 batches of 100 at
 * concurrency 2 each, the services taking turns in four rounds.
 * - Concurrency 1 too, and that many: with group commit on, `n` requests at concurrency 8 are a
 *   few hundred multi-row INSERTs, so the code that sends one statement per request had run a
 *   sixth as often as with it off. At c1 both services then run the same code, but the one with
 *   group commit on was still being optimised while c1 was measured (V8's --trace-opt: 117
 *   optimisations and 38 deoptimisations during its c1 slices, against 29 and 13), which cost it
 *   more CPU per request on the main thread and on V8's compiler threads.
 * - Turns: a service warmed first and then left idle while the other warmed came out 4–8% slower
 *   at c1 than an identical service warmed second (A/A runs).
 * - `/metrics` read each round, as Prometheus scrapes a deployed service. This bench reads the
 *   group-commit service's group sizes (`groups`) just before the c1 slices, and that one request of
 *   another client to another route deoptimised its HTTP request path (V8's --trace-deopt: 25
 *   "wrong map" bailouts, in IncomingMessage, the HTTP parser's callbacks, CORS, send, end);
 *   recompiled for both kinds of request, it cost 8–37% more service CPU per c1 request than the
 *   other service, which had only ever seen one client and two routes: identical services ran
 *   at 0.78–0.97× each other in those two roles (13 runs), as much as group commit on ÷ off did.
 *   Read here in both, they ran at 0.95–1.02× and on ÷ off at 0.97–1.01× (three runs each;
 *   bench/README.md, "What a batch costs against pgbench's").
 */
async function warmIngest(services: { api: Client; base: string }[], n: number): Promise<void> {
  const ROUNDS = 4;
  const per = Math.ceil(n / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const { api, base } of services) {
      await metricsText(base);
      const singles = episodesFor(`warm-${round}`, per, 1);
      await load(per, 8, (i) => api.call('POST', '/v1/episodes', singles[i]));
      const alone = episodesFor(`warm-c1-${round}`, 2 * per, 3);
      await load(alone.length, 1, (i) => api.call('POST', '/v1/episodes', alone[i]));
      const batches = episodesFor(`warm-batch-${round}`, 500, 2);
      await load(20 / ROUNDS, 2, (i) => api.call('POST', '/v1/episodes/batch', { episodes: batches.slice(i * 100, i * 100 + 100) }));
    }
  }
}

type CpuCost = Awaited<ReturnType<typeof cpuPerRequest>>['cost'];

/** A SQL string literal. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A service's /metrics (Prometheus text). */
async function metricsText(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`, { headers: AUTH })).text();
}

/** memory_ingest_group_size's count and sum, from /metrics. */
async function groups(base: string): Promise<{ count: number; sum: number }> {
  const text = await metricsText(base);
  const pick = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: pick('memory_ingest_group_size_count'), sum: pick('memory_ingest_group_size_sum') };
}

async function main(): Promise<void> {
  const pgAdminUrl = pgAdminUrlArg();
  const ingestN = Number(arg('ingest', '2400'));
  const batchN = Number(arg('batches', '200'));
  const warmN = Number(arg('warm', '2000'));
  const contextN = Number(arg('context', '240'));
  const pgbenchSeconds = Number(arg('pgbench-seconds', '8'));
  const withReplica = !process.argv.includes('--no-replica');
  const results: Result[] = [];
  const ceiling: Record<string, number> = {};
  let ceilingBefore: Record<string, number> = {};
  let ceilingAfter: Record<string, number> = {};
  let dropPgbenchDb: (() => Promise<void>) | null = null;
  const shares: { label: string; rate: number; key: string; p99?: number }[] = [];
  const groupSizes: Record<number, number> = {};
  let contextCpu: CpuCost | null = null;
  // Machine CPU per pgbench transaction (keyed as `ceiling`), and what a batch request costs.
  const ceilingCpu: Record<string, number[]> = {};
  const batchCpu: Record<number, CpuCost> = {};
  const services: RunningService[] = [];
  const start = async (env: Record<string, string>, databaseUrl?: string) => {
    const svc = await startService({ pgAdminUrl, databaseUrl, env: OPEN ? env : { SERVICE_API_KEY: API_KEY, ...env } });
    services.push(svc);
    return svc;
  };
  try {
    // 0. The database's ceiling for the same row, in this run (the machine drifts between runs),
    // measured before the ingest figures and again after them (below): each share divides by the
    // mean of the two, and a ceiling that moved by more than a fifth in between is reported.
    const pgbenchDb = await createThrowawayDb(pgAdminUrl, 'memsvc_pgbench');
    dropPgbenchDb = pgbenchDb.drop;
    const migrator = await startService({ databaseUrl: pgbenchDb.url });
    await migrator.stop();
    const ep = episodesFor('pgbench', 5, 1)[0];
    const text = ep.payload.messages.map((m) => m.content).join('\n');
    const values = `${lit(ep.subject_id)}, ${lit(ep.session_id)}, ${lit(ep.source)}, ${lit(ep.type)}, ${lit(JSON.stringify(ep.payload))}::jsonb, '{}'::jsonb, '{}'::jsonb, ${lit(text)}`;
    const cols = 'subject_id, session_id, source, type, payload, metadata, provenance, content_text';
    const oneRow = `INSERT INTO episodes (${cols}) VALUES (${values});`;
    const hundredRows = `INSERT INTO episodes (${cols}) SELECT ${values} FROM generate_series(1, 100);`;
    const measureCeiling = (when: string): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const c of [1, 8, 32]) {
        out[`1-row c${c}`] = pgbench(pgbenchDb.url, oneRow, c, pgbenchSeconds).tps;
        log(`pgbench ${when}: 1 row per transaction, ${c} clients: ${out[`1-row c${c}`]} tps`);
      }
      for (const c of [1, 2]) {
        const run = pgbench(pgbenchDb.url, hundredRows, c, pgbenchSeconds);
        out[`100-row c${c}`] = run.tps * 100;
        (ceilingCpu[`100-row c${c}`] ??= []).push(run.cpuMs);
        log(`pgbench ${when}: 100 rows per transaction, ${c} clients: ${out[`100-row c${c}`]} rows/s`);
      }
      return out;
    };
    ceilingBefore = measureCeiling('before');

    // 1. Group commit on vs off, one worker each.
    log('ingest: starting two services (group commit on, off)');
    const onSvc = await start({ SERVICE_INGEST_GROUP_COMMIT: 'true' });
    const onBase = onSvc.base;
    const on = connect(onBase);
    const offSvc = await start({ SERVICE_INGEST_GROUP_COMMIT: 'false' });
    const off = connect(offSvc.base);
    const ingestSide = (name: string, api: Client) => ({
      name,
      run: (n: number, c: number, offset: number) => {
        const eps = episodesFor(`ingest-${name}-c${c}`, offset + n, 5 + c).slice(offset);
        return load(n, c, (i) => api.call('POST', '/v1/episodes', eps[i]));
      },
    });
    await warmIngest([{ api: on, base: onBase }, { api: off, base: offSvc.base }], warmN);
    for (const c of [1, 8, 32]) {
      const before = await groups(onBase);
      const by = await alternate([ingestSide('group commit on', on), ingestSide('group commit off', off)], ingestN, c);
      const after = await groups(onBase);
      const mean = round2((after.sum - before.sum) / Math.max(1, after.count - before.count));
      log(`ingest c${c}: mean group size ${mean} (requests per commit, group commit on)`);
      groupSizes[c] = mean;
      for (const [side, summary] of by) {
        results.push({ comparison: 'single-episode ingest', side, concurrency: c, summary });
        shares.push({ label: `single-episode ingest c${c}, ${side}`, rate: summary.throughput_per_s, key: `1-row c${c}`, p99: summary.p99 });
        log(`ingest c${c} ${side}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
      }
    }
    for (const c of [1, 2]) {
      const eps = episodesFor(`batch-c${c}`, batchN * 100, 40 + c);
      const bodies = Array.from({ length: batchN }, (_, i) => ({ episodes: eps.slice(i * 100, i * 100 + 100) }));
      const { cost, result: r } = await cpuPerRequest(onSvc, batchN, () => load(batchN, c, (i) => on.call('POST', '/v1/episodes/batch', bodies[i])));
      batchCpu[c] = cost;
      const summary = summarise(r.samples, r.wallMs, 100);
      results.push({ comparison: 'batch ingest (100 per request; rate per episode)', side: 'group commit on', concurrency: c, summary });
      shares.push({ label: `batch ingest c${c} (episodes)`, rate: summary.throughput_per_s, key: `100-row c${c}` });
      log(`batch c${c}: ${summary.throughput_per_s} episodes/s; CPU per batch: service ${cost.service_ms} ms, database ${cost.database_ms} ms, client ${cost.client_ms} ms, the machine ${cost.machine_ms} ms`);
    }
    while (services.length) await services.pop()!.stop();
    ceilingAfter = measureCeiling('after');
    await pgbenchDb.drop();
    dropPgbenchDb = null;
    for (const key of Object.keys(ceilingBefore)) {
      ceiling[key] = (ceilingBefore[key] + ceilingAfter[key]) / 2;
      const moved = ceilingAfter[key] / ceilingBefore[key];
      if (moved > 1.2 || moved < 1 / 1.2) log(`pgbench ${key} moved ${round2(moved)}× during the ingest figures: the machine drifted, their shares are rough`);
    }

    // 2. Context with one worker vs two.
    log('context: starting two services (SERVICE_WORKERS=1, 2)');
    const oneSvc = await start({ SERVICE_WORKERS: '1' });
    const one = connect(oneSvc.base);
    const twoSvc = await start({ SERVICE_WORKERS: '2' });
    const two = connect(twoSvc.base);
    const sid = 'bench-ctx';
    const eps = episodesFor(sid, 500, 99);
    let memories = 0;
    // These services are also compared on ingest below; with two workers each needs its own warm-up.
    await warmIngest([{ api: one, base: oneSvc.base }, { api: two, base: twoSvc.base }], warmN);
    for (const api of [one, two]) {
      for (let i = 0; i < eps.length; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i, i + 100) });
      memories = (await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: sid })).memories_created;
    }
    // Context warm-up, in turns: `warmN / 10` at c8 and `warmN / 4` at c1 each. After the c8 part
    // alone, the first 300 requests at c1 ran four full collections (the old generation growing
    // ~2 MB a scavenge) at 100/s, and the next 900 one in all at 116–125/s: measured then, c1
    // was the warm-up's tail (2026-12-04).
    for (let round = 0; round < 4; round++) {
      for (const api of [one, two]) {
        await load(Math.ceil(warmN / 40), 8, askContext(api, sid));
        await load(Math.ceil(warmN / 16), 1, askContext(api, sid));
      }
    }
    log(`context subject: ${memories} memories from ${eps.length} episodes`);
    const contextSide = (name: string, api: Client) => ({
      name,
      run: (n: number, c: number) => load(n, c, askContext(api, sid)),
    });
    for (const c of [1, 8]) {
      const by = await alternate([contextSide('SERVICE_WORKERS=1', one), contextSide('SERVICE_WORKERS=2', two)], contextN, c);
      for (const [side, summary] of by) {
        results.push({ comparison: `context (~${memories} memories, budget 1000)`, side, concurrency: c, summary });
        log(`context c${c} ${side}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
      }
    }
    // What concurrency can gain at most on this machine, from the CPU one request costs.
    const { cost: cpu } = await cpuPerRequest(oneSvc, contextN, () => load(contextN, 1, askContext(one, sid)));
    contextCpu = cpu;
    log(
      `context c1 CPU per request: service ${cpu.service_ms} ms, database ${cpu.database_ms} ms, client ${cpu.client_ms} ms, wall ${cpu.wall_ms} ms: ` +
        `with ${cpu.cores} cores busy, concurrency can at most multiply the c1 rate by ${cpu.ceiling}`,
    );
    const workerIngest = (name: string, api: Client) => ({
      name,
      run: (n: number, c: number, offset: number) => {
        const eps = episodesFor(`workers-${name}-c${c}`, offset + n, 60 + c).slice(offset);
        return load(n, c, (i) => api.call('POST', '/v1/episodes', eps[i]));
      },
    });
    for (const c of [8, 32]) {
      const by = await alternate([workerIngest('SERVICE_WORKERS=1', one), workerIngest('SERVICE_WORKERS=2', two)], ingestN, c);
      for (const [side, summary] of by) {
        results.push({ comparison: 'single-episode ingest (group commit on)', side, concurrency: c, summary });
        shares.push({ label: `single-episode ingest c${c}, ${side} (group commit on)`, rate: summary.throughput_per_s, key: `1-row c${c}`, p99: summary.p99 });
        log(`ingest c${c} ${side}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
      }
    }
    while (services.length) await services.pop()!.stop();

    // 3. Context reads with a streaming replica vs the primary alone (both private clusters).
    if (withReplica) {
      log('replica: starting a private primary and its streaming replica');
      const primary = new PrivatePostgres();
      let replica: PrivatePostgres | null = null;
      try {
        await primary.init();
        replica = await primary.startReplica();
        const alone = connect((await start({}, primary.url())).base);
        const replicated = connect((await start({ SERVICE_READ_REPLICA_URLS: JSON.stringify([replica.url()]) }, primary.url())).base);
        const rsid = 'bench-replica';
        const reps = episodesFor(rsid, 500, 99);
        for (let i = 0; i < reps.length; i += 100) await alone.call('POST', '/v1/episodes/batch', { episodes: reps.slice(i, i + 100) });
        const rmem = (await alone.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: rsid })).memories_created;
        // Past the read-your-writes window of the writes above, so the replica serves every read.
        await new Promise((r) => setTimeout(r, 11_000));
        for (const api of [alone, replicated]) await load(Math.ceil(warmN / 10), 8, askContext(api, rsid));
        const side = (name: string, api: Client) => ({
          name,
          run: (n: number, c: number) => load(n, c, askContext(api, rsid)),
        });
        // Transactions the standby ran (its own statistics): the replicated side's reads land there.
        const standbyXacts = async () => {
          const c = new PgClient({ connectionString: replica!.url() });
          await c.connect();
          try {
            return Number((await c.query<{ n: string }>(`SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = 'memsvc'`)).rows[0].n);
          } finally {
            await c.end();
          }
        };
        const x0 = await standbyXacts();
        const by = await alternate([side('primary only', alone), side('with a streaming replica', replicated)], contextN, 8);
        log(`replica: the standby ran ${(await standbyXacts()) - x0} transactions for ${contextN} context requests of the replicated side`);
        for (const [name, summary] of by) {
          results.push({ comparison: `context (~${rmem} memories, budget 1000; private cluster, fsync off)`, side: name, concurrency: 8, summary });
          log(`replica context c8 ${name}: p50 ${summary.p50} p99 ${summary.p99} ms, ${summary.throughput_per_s}/s`);
        }
      } finally {
        while (services.length) await services.pop()!.stop();
        if (replica) await replica.destroy();
        await primary.destroy();
      }
    }
  } finally {
    while (services.length) await services.pop()!.stop();
    await dropPgbenchDb?.();
  }

  const lines = ['| comparison | side | concurrency | p50 ms | p95 ms | p99 ms | throughput/s |', '|---|---|---|---|---|---|---|'];
  for (const r of results) lines.push(`| ${r.comparison} | ${r.side} | ${r.concurrency} | ${r.summary.p50} | ${r.summary.p95} | ${r.summary.p99} | ${r.summary.throughput_per_s} |`);
  if (contextCpu) {
    const c = contextCpu;
    lines.push('', `context c1, CPU per request (SERVICE_WORKERS=1): service ${c.service_ms} ms, database ${c.database_ms} ms, client ${c.client_ms} ms, wall ${c.wall_ms} ms; ceiling of c8/c1 on ${c.cores} cores: ${c.ceiling}×`);
  }
  lines.push('', `mean requests per commit with group commit on: ${Object.entries(groupSizes).map(([c, m]) => `c${c} ${m}`).join(', ')}`);
  const rates = (c: Record<string, number>) => Object.entries(c).map(([k, v]) => `${k} ${Math.round(v)}/s`).join(', ');
  const shareLines = shares.map((s) => {
    const pct = (x: number) => `${Math.round((s.rate / x) * 1000) / 10}%`;
    const p99 = s.p99 === undefined ? '' : `, p99 ${s.p99} ms`;
    return `- ${s.label}: ${s.rate}/s = ${pct(ceiling[s.key])} of pgbench ${s.key} (${pct(ceilingBefore[s.key])} of the rate before, ${pct(ceilingAfter[s.key])} of the rate after)${p99}`;
  });
  lines.push('', `pgbench ceiling (same row, same run), mean of before and after the ingest figures: ${rates(ceiling)}`, `before: ${rates(ceilingBefore)}`, `after: ${rates(ceilingAfter)}`, ...shareLines);
  // What the batch figure can reach on this machine: the rate at which every core would be busy
  // at the CPU one batch costs (service, database, this client), as a share of pgbench's.
  const batchBounds = Object.entries(batchCpu).map(([c, cost]) => {
    const key = `100-row c${c}`;
    const pg = (ceilingCpu[key] ?? []).reduce((a, x) => a + x, 0) / Math.max(1, (ceilingCpu[key] ?? []).length);
    const pgBusy = Math.round(((ceiling[key] / 100) * pg) / 10 / cost.cores);
    const bound = Math.round((((cost.cores * 1000) / cost.machine_ms) * 100 * 1000) / ceiling[key]) / 10;
    return (
      `- batch ingest c${c}: the machine's CPU per 100 rows ${cost.machine_ms} ms (service ${cost.service_ms}, database ${cost.database_ms}, this client ${cost.client_ms}) ` +
      `against ${round2(pg)} ms per pgbench transaction (${round2(cost.machine_ms / pg)}×; pgbench kept ${pgBusy}% of the ${cost.cores} cores busy); ` +
      `with every core busy at that cost, batches reach at most ${bound}% of pgbench ${key}`
    );
  });
  if (batchBounds.length) lines.push('', 'batch ingest against the CPU it costs:', ...batchBounds);
  process.stdout.write(lines.join('\n') + '\n');
  const outDir = resolve(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'throughput-postgres.json');
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, ingestN, contextN, groupSizes, ceiling, ceilingBefore, ceilingAfter, ceilingCpu, contextCpu, batchCpu, shares: shareLines, batchBounds, results }, null, 2));
  log(`wrote ${file}`);
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
