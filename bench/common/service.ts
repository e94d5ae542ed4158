import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/support/free-port';
import { createThrowawayDb } from '../../test/support/throwaway-db';

/** A built service (dist/src/main.js) started by a benchmark, on PGlite or a fresh PostgreSQL database. */
export interface RunningService {
  base: string;
  pid: number | null;
  engine: string;
  /** The PostgreSQL database it runs on (null on PGlite), e.g. to find its backends. */
  databaseUrl: string | null;
  coldStartMs: number;
  rssMb(): number | null;
  stop(): Promise<void>;
}

export async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface StartOptions {
  /** PostgreSQL admin URL: a fresh database is created on it and dropped at stop. Absent: PGlite. */
  pgAdminUrl?: string;
  /** An existing PostgreSQL database to use as it is (e.g. a private cluster's); wins over pgAdminUrl. */
  databaseUrl?: string;
  env?: Record<string, string>;
  /** Another build's entry point (e.g. a baseline checkout's dist/src/main.js) instead of this one's. */
  main?: string;
  /** Extra node flags after those of `start:prod`, e.g. `--cpu-prof` to profile the service. */
  nodeFlags?: string[];
}

/**
 * The node flags of `npm run start:prod` (the heap cap), so the benchmark measures the service as
 * operators run it; package.json is their one source.
 */
function startNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // BENCH_NODE_FLAGS adds flags for a run (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), which
  // NODE_OPTIONS does not accept for every flag.
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return [...pkg.scripts['start:prod'].split(/\s+/).filter((word) => word.startsWith('--')), ...extra];
}

export async function startService(opts: StartOptions = {}): Promise<RunningService> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SERVICE_PORT: String(port),
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_AUTO_MIGRATE: 'true',
    ...opts.env,
  };
  let dropDb: (() => Promise<void>) | null = null;
  let dataDir: string | null = null;
  if (opts.databaseUrl) {
    env.SERVICE_DATABASE_URL = opts.databaseUrl;
  } else if (opts.pgAdminUrl) {
    const db = await createThrowawayDb(opts.pgAdminUrl, 'memsvc_bench');
    env.SERVICE_DATABASE_URL = db.url;
    dropDb = db.drop;
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'memsvc-bench-'));
    env.SERVICE_DATA_DIR = dataDir;
    delete env.SERVICE_DATABASE_URL;
  }
  const main = opts.main ?? resolve(__dirname, '..', '..', 'src', 'main.js');
  const started = process.hrtime.bigint();
  const child: ChildProcess = spawn(process.execPath, [...startNodeFlags(), ...(opts.nodeFlags ?? []), main], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  // Generous: a cold PGlite start takes seconds alone and minutes on a loaded shared machine.
  await waitFor(`${base}/healthz`, 300000);
  const coldStartMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    base,
    pid: child.pid ?? null,
    engine: opts.pgAdminUrl || opts.databaseUrl ? 'postgres' : 'pglite',
    databaseUrl: env.SERVICE_DATABASE_URL ?? null,
    coldStartMs,
    rssMb: () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        return Math.round(kb / 1024);
      } catch {
        return null;
      }
    },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      if (dropDb) await dropDb();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The LoCoMo development split: `shared/data/locomo-dev.json` next to the repository (the
 * workplace layout), resolved from where npm runs the scripts (the repository root).
 */
export const DEFAULT_LOCOMO_PATH = resolve(process.cwd(), '..', 'shared', 'data', 'locomo-dev.json');

/** `--name value` from the command line, or the fallback. */
export function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** Every `--name value` pair of the command line, in order (a flag given more than once). */
export function args(name: string): string[] {
  const values: string[] = [];
  process.argv.forEach((word, i) => {
    if (word === `--${name}` && i + 1 < process.argv.length) values.push(process.argv[i + 1]);
  });
  return values;
}

/** The PostgreSQL admin URL benchmarks create their databases on: `--pg-admin-url`, else BENCH_PG_ADMIN_URL, else the local server. */
export function pgAdminUrlArg(): string {
  return arg('pg-admin-url', process.env.BENCH_PG_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres')!;
}

/**
 * The service a benchmark measures: the one at `--base URL`, or one it starts itself on
 * `--engine` (pglite by default; postgres gets a fresh database on `--pg-admin-url`, default
 * BENCH_PG_ADMIN_URL or the local server), from `--main PATH` when given (another build's
 * dist/src/main.js, e.g. a baseline checkout's, measured by this build's client). `svc` is null
 * for `--base`: nothing to stop.
 */
export async function serviceUnderTest(log: (line: string) => void, env: Record<string, string> = {}): Promise<{ base: string; svc: RunningService | null }> {
  const base = arg('base');
  if (base) return { base, svc: null };
  const engine = arg('engine', 'pglite')!;
  const main = arg('main');
  log(`starting service on ${engine}${main ? ` from ${main}` : ''}`);
  const svc = await startService({ pgAdminUrl: engine === 'postgres' ? pgAdminUrlArg() : undefined, env, main });
  return { base: svc.base, svc };
}

/**
 * Busy CPU of the whole machine so far, ms (/proc/stat: user, nice, system, irq, softirq, steal;
 * 10 ms ticks): what a process whose helpers exit with it costs (pgbench's backends take their
 * per-process counters along), which `cpuMs` cannot see.
 */
export function machineCpuMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * 10;
}

/** utime + stime of a process in ms (0 once it has gone), from /proc (Linux clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
