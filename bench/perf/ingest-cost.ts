/**
 * Where a single-episode request's cost goes (issue 22): `npm run build && node
 * dist/bench/perf/ingest-cost.js [--requests 600] [--pg-admin-url URL] [--cpu-prof DIR]
 * [--group-commit true|false] [--open] [--main path/to/dist/src/main.js] [--batch 100]`. PostgreSQL only.
 *
 * Starts the built service (as `npm run start:prod` does) on a fresh database reached through a
 * small PostgreSQL wire-protocol proxy on a local port, then POSTs `--requests` episodes of one
 * subject (all with a session, so each also marks the subject's health for recomputation) at
 * concurrency 1 and then 8, and prints per HTTP request:
 *
 * - round trips to the database: client→server message batches that end in Sync (extended
 *   protocol) or are a simple Query, counted by the proxy, including the background work the
 *   requests cause (the coalesced health recomputation), and the statements they carry, most
 *   frequent first, so a redundant query shows up by name;
 * - CPU of the service process and of the database's backends (utime + stime from
 *   /proc/<pid>/stat, 10 ms ticks: the per-request figure is a mean over many requests), and
 *   wall time, p50 and p99;
 * - the cost of one health recomputation at the subject's final size (GET health, which runs
 *   the same recomputation the ingestion triggers).
 *
 * The service runs with an API key and every request presents it, as a production deployment
 * does; `--open` runs it without one (open access then reads the api_keys table on every request,
 * by design: one more round trip). `--main` measures another build (e.g. a checkout of main) for
 * a before/after comparison; run the two alternately (A B B A), the machine drifts.
 *
 * `--batch N` measures `POST /v1/episodes/batch` instead: each request carries N episodes (of one
 * subject, with sessions, no idempotency keys, as the throughput bench sends them), at concurrency
 * 1 and then 2 (the batch figures), and every per-request figure is also divided by N:
 * the batch target is a share of pgbench's 100-rows-per-transaction rate, so the cost per row
 * is what to compare. `--requests` then counts batches (default 60); no health step.
 * `--sessions false` sends the episodes without session ids, so they mark no subject's health for
 * recomputation: the request's own cost without the background work (which, on this one subject
 * of thousands of sessions, costs more than the batches themselves).
 *
 * `--cpu-prof DIR` runs the service with `node --cpu-prof --cpu-prof-dir DIR`: the V8 profile is
 * written when it stops (open it in Chrome DevTools or speedscope). The machine is shared, so
 * compare figures within one run; CPU per request and round trips are the steadier measures.
 */
import { createServer, connect, Server, Socket } from 'node:net';
import { spawnSync } from 'node:child_process';
import { Client as PgClient } from 'pg';
import { createThrowawayDb } from '../../test/support/throwaway-db';
import { client, load } from '../common/http';
import { arg, cpuMs, pgAdminUrlArg, startService } from '../common/service';
import { round2, summarise } from '../common/stats';
import { episodesFor } from './data';

/** Startup-phase request codes that are followed by another startup message, not by typed ones. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * A TCP proxy in front of PostgreSQL that parses what clients send: every Sync ('S') or simple
 * Query ('Q') ends one round trip; the statement it ran (Parse text, or the text a Bind's named
 * statement was prepared with, or the Query text) is tallied under its first words.
 */
export class CountingPgProxy {
  roundTrips = 0;
  readonly statements = new Map<string, number>();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    this.server = createServer((client) => this.handle(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  reset(): void {
    this.roundTrips = 0;
    this.statements.clear();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }

  private handle(client: Socket): void {
    const server = connect(this.target.port, this.target.host);
    // As node-postgres sets on its own socket: with Nagle's algorithm on, a message written in two
    // segments waits for the peer's delayed ACK (~40 ms on Linux), and the proxy would add that.
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.sockets.add(client).add(server);
    const prepared = new Map<string, string>();
    let buf: Buffer = Buffer.alloc(0);
    let startup = true;
    let pending: string | null = null;
    const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
    client.on('data', (chunk: Buffer) => {
      server.write(chunk);
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (startup) {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
          buf = buf.subarray(len);
          continue;
        }
        if (buf.length < 5) return;
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) return;
        const type = String.fromCharCode(buf[0]);
        const body = buf.subarray(5, 1 + len);
        buf = buf.subarray(1 + len);
        if (type === 'P') {
          const nameEnd = body.indexOf(0);
          const name = body.subarray(0, nameEnd).toString();
          const sql = body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString();
          if (name) prepared.set(name, sql);
          pending ??= label(sql);
        } else if (type === 'B') {
          const portalEnd = body.indexOf(0);
          const name = body.subarray(portalEnd + 1, body.indexOf(0, portalEnd + 1)).toString();
          if (name && prepared.has(name)) pending ??= label(prepared.get(name)!);
        } else if (type === 'S' || type === 'Q') {
          const what = type === 'Q' ? label(body.subarray(0, body.length - 1).toString()) : (pending ?? '(sync)');
          this.roundTrips++;
          this.statements.set(what, (this.statements.get(what) ?? 0) + 1);
          pending = null;
        }
      }
    });
    server.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      server.destroy();
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  }
}


async function backendPids(dbUrl: string): Promise<number[]> {
  const c = new PgClient({ connectionString: dbUrl });
  await c.connect();
  try {
    return (await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

/** Lets the coalesced health recomputation that the last requests marked run (delay 200 ms, then backoff). */
const SETTLE_MS = 1500;

async function main(): Promise<void> {
  const pgAdminUrl = pgAdminUrlArg();
  const batch = Number(arg('batch', '0'));
  const n = Number(arg('requests', batch > 0 ? '60' : '600'));
  const per = Math.max(batch, 1);
  const profDir = arg('cpu-prof');
  const groupCommit = arg('group-commit', 'true')!;
  const open = process.argv.includes('--open');
  const apiKey = 'ingest-cost-bench-key';
  const db = await createThrowawayDb(pgAdminUrl, 'memsvc_ingestcost');
  const real = new URL(db.url);
  const proxy = new CountingPgProxy({ host: real.hostname, port: Number(real.port || 5432) });
  const proxied = new URL(db.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(await proxy.listen());
  const svc = await startService({
    databaseUrl: proxied.toString(),
    env: { SERVICE_INGEST_GROUP_COMMIT: groupCommit, ...(open ? {} : { SERVICE_API_KEY: apiKey }) },
    main: arg('main'),
    nodeFlags: profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
  });
  const lines: string[] = [];
  const out: Record<string, unknown>[] = [];
  try {
    const api = client(svc.base, open ? {} : { 'x-api-key': apiKey });
    const warm = episodesFor('ingest-cost-warm', 100, 1);
    await load(warm.length, 8, (i) => api.call('POST', '/v1/episodes', warm[i]));
    // The batch path warmed too (its statement prepared on the pool's connections, V8 optimised).
    if (batch > 0) await load(10, 2, (i) => api.call('POST', '/v1/episodes/batch', { episodes: episodesFor(`ingest-cost-warm-${i}`, batch, 2) }));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const subject = 'ingest-cost';
    const sessions = arg('sessions', 'true') !== 'false';
    const eps = episodesFor(subject, 2 * n * per, 7).map((e) => (sessions ? e : { ...e, session_id: undefined }));
    // One request: a single episode, or the next `batch` of them.
    const send = (i: number) => (batch > 0 ? api.call('POST', '/v1/episodes/batch', { episodes: eps.slice(i * batch, (i + 1) * batch) }) : api.call('POST', '/v1/episodes', eps[i]));
    const what = batch > 0 ? `batch ingest (${batch} episodes per request)` : 'single-episode ingest';
    lines.push(`${what} cost per request (PostgreSQL, group commit ${groupCommit}, ${open ? 'open access' : 'API key'}${sessions ? '' : ', no sessions'}, ${n} requests per step, one subject growing to ${2 * n * per} episodes)`);
    lines.push(`conc  req/s    p50 ms  p99 ms  round trips  service CPU ms  database CPU ms${batch > 0 ? '  | per episode: service CPU ms  database CPU ms  episodes/s' : ''}`);
    for (const [step, c] of (batch > 0 ? [1, 2] : [1, 8]).entries()) {
      const pids = await backendPids(db.url);
      const sum = (ps: number[]) => ps.reduce((t, p) => t + cpuMs(p), 0);
      proxy.reset();
      const s0 = cpuMs(svc.pid!), d0 = sum(pids);
      const r = await load(n, c, (i) => send(step * n + i));
      await new Promise((res) => setTimeout(res, SETTLE_MS));
      // Backends opened during the step (the pool grows under concurrency) are counted too.
      const after = [...new Set([...pids, ...(await backendPids(db.url))])];
      const service = (cpuMs(svc.pid!) - s0) / n;
      const database = (sum(after) - d0) / n;
      const trips = proxy.roundTrips / n;
      const s = summarise(r.samples, r.wallMs);
      const top = [...proxy.statements].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([sql, k]) => ({ per_request: Math.round((k / n) * 1000) / 1000, sql }));
      const perEpisode = batch > 0 ? { episode_service_cpu_ms: Math.round((service / batch) * 1000) / 1000, episode_database_cpu_ms: Math.round((database / batch) * 1000) / 1000, episodes_per_s: Math.round(s.throughput_per_s * batch) } : {};
      const row = { concurrency: c, ...s, round_trips: Math.round(trips * 1000) / 1000, service_cpu_ms: round2(service), database_cpu_ms: round2(database), ...perEpisode, statements: top };
      out.push(row);
      const tail = batch > 0 ? `${''.padEnd(17)}${String(perEpisode.episode_service_cpu_ms).padEnd(16)}${String(perEpisode.episode_database_cpu_ms).padEnd(17)}${perEpisode.episodes_per_s}` : '';
      lines.push(`c${String(c).padEnd(4)}${String(s.throughput_per_s).padEnd(9)}${String(s.p50).padEnd(8)}${String(s.p99).padEnd(8)}${String(row.round_trips).padEnd(13)}${String(row.service_cpu_ms).padEnd(16)}${String(row.database_cpu_ms).padEnd(17)}${tail}`.trimEnd());
      for (const t of top) lines.push(`        ${t.per_request.toFixed(3)}/req  ${t.sql}`);
    }
    // The recomputation an ingestion triggers, at the subject's final size (GET health runs the same).
    // Not for batches: the subject is then 100× larger, another question.
    if (batch === 0) {
      const h0 = cpuMs(svc.pid!);
      const hr = await load(20, 1, () => api.call('GET', `/v1/subjects/${subject}/health`));
      const health = { episodes: 2 * n * per, service_cpu_ms: (cpuMs(svc.pid!) - h0) / 20, ...summarise(hr.samples, hr.wallMs) };
      out.push({ health_recompute: health });
      lines.push(`health recomputation at ${2 * n * per} episodes (GET health, 20 calls): p50 ${health.p50} ms, service CPU ${health.service_cpu_ms} ms per call`);
    }
  } finally {
    await svc.stop();
    await proxy.close();
    await db.drop();
  }
  if (profDir) lines.push(`V8 CPU profile of the service: ${spawnSync('ls', ['-t', profDir], { encoding: 'utf8' }).stdout.split('\n')[0]} in ${profDir}`);
  process.stdout.write(lines.join('\n') + '\n');
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(`benchmark failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
