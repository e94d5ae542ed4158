import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { Client } from 'pg';
import { freePort } from '../../support/free-port';
import { createThrowawayDb, DEFAULT_PG_ADMIN_URL } from '../../support/throwaway-db';
import { sleep } from './settings';

export { freePort };

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
/**
 * The build under test. RELIABILITY_DIST points at a copy (see scripts/reliability/run.js), so a
 * long run is not disturbed by a rebuild of dist/ meanwhile.
 */
const DIST = process.env.RELIABILITY_DIST ?? join(REPO_ROOT, 'dist');
export const MAIN_JS = join(DIST, 'src', 'main.js');
export const CLI_JS = join(DIST, 'src', 'cli', 'main.js');

export type Engine = 'pglite' | 'postgres';
export const runEngine = (): Engine => ((process.env.TEST_ENGINE ?? 'pglite') === 'postgres' ? 'postgres' : 'pglite');

export function assertBuilt(): void {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: the reliability harness runs the built service (npx nest build, or npm test which builds first)`);
}

/**
 * Where a spawned service keeps its data: a fresh PostgreSQL database on the admin server, or a
 * fresh PGlite data directory. `query` reads it directly for invariant checks; on PGlite it
 * opens the data directory in this process, so only while no service runs on it.
 */
export interface ServiceDb {
  engine: Engine;
  env: Record<string, string>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Closes the direct connection (PGlite: releases the data directory). */
  release(): Promise<void>;
  drop(): Promise<void>;
}

export async function provisionDb(engine: Engine = runEngine(), adminUrl = process.env.TEST_PG_ADMIN_URL ?? DEFAULT_PG_ADMIN_URL): Promise<ServiceDb> {
  if (engine === 'postgres') {
    const tdb = await createThrowawayDb(adminUrl, 'memsvc_rel');
    const url = tdb.url;
    let client: Client | null = null;
    return {
      engine,
      env: { SERVICE_DATABASE_URL: url },
      async query(text, params) {
        if (!client) {
          client = new Client({ connectionString: url });
          await client.connect();
        }
        return (await client.query(text, params as unknown[])).rows;
      },
      async release() {
        await client?.end().catch(() => undefined);
        client = null;
      },
      async drop() {
        await client?.end().catch(() => undefined);
        client = null;
        await tdb.drop();
      },
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-rel-'));
  let db: PGlite | null = null;
  return {
    engine,
    env: { SERVICE_DATA_DIR: dataDir },
    async query(text, params) {
      if (!db) db = await PGlite.create({ dataDir: join(dataDir, 'pglite'), extensions: { vector } });
      return (await db.query(text, params as unknown[])).rows as never[];
    },
    async release() {
      await db?.close().catch(() => undefined);
      db = null;
    },
    async drop() {
      await db?.close().catch(() => undefined);
      db = null;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServiceProcess {
  base: string;
  port: number;
  child: ChildProcess;
  /** Every line the process wrote to stdout and stderr, in order. */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM and wait (bounded); SIGKILL when it does not exit in time. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Settings every harness service gets: loopback, fast worker polls, info logs (captured). */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SERVICE_') && k !== 'NODE_OPTIONS') env[k] = v;
  return {
    ...env,
    SERVICE_HOST: '127.0.0.1',
    SERVICE_AUTO_MIGRATE: 'true',
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_WORKER_POLL_MS: '50',
    SERVICE_EMBEDDING_DIMENSIONS: '64',
    ...extra,
  };
}

/**
 * The node flags `npm run start:prod` passes (the V8 heap cap), read from package.json so a
 * suite started with `prodFlags` runs the service exactly as production starts it.
 */
export function prodNodeFlags(): string[] {
  const script = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod'];
  const m = /^node\s+(.*?)\s*dist\/src\/main\.js/.exec(script);
  if (!m) throw new Error(`cannot read node flags from start:prod: ${script}`);
  return m[1].split(/\s+/).filter(Boolean);
}

/** Starts dist/src/main.js and waits for /healthz (bounded); `prodFlags` adds start:prod's node flags. */
export async function startService(env: Record<string, string>, opts: { port?: number; readyTimeoutMs?: number; prodFlags?: boolean } = {}): Promise<ServiceProcess> {
  assertBuilt();
  const port = opts.port ?? (await freePort());
  // RELIABILITY_WORKERS=N runs every PostgreSQL service of the suites with SERVICE_WORKERS=N (the
  // cluster mode; a suite that sets SERVICE_WORKERS itself keeps its value).
  const workers = process.env.RELIABILITY_WORKERS && env.SERVICE_DATABASE_URL && !env.SERVICE_WORKERS ? { SERVICE_WORKERS: process.env.RELIABILITY_WORKERS } : {};
  const child = spawn(process.execPath, [...(opts.prodFlags ? prodNodeFlags() : []), MAIN_JS], { env: { ...env, ...workers, SERVICE_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT });
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream) => {
    let rest = '';
    stream.on('data', (c: Buffer) => {
      const parts = (rest + c.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
    stream.on('end', () => {
      if (rest) lines.push(rest);
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  let dead = false;
  void exited.then(() => (dead = true));
  for (;;) {
    if (dead) throw new Error(`service exited during start-up:\n${lines.slice(-30).join('\n')}`);
    try {
      const r = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not healthy after ${opts.readyTimeoutMs ?? 60_000} ms:\n${lines.slice(-30).join('\n')}`);
    }
    await sleep(25);
  }
  return {
    base,
    port,
    child,
    lines,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const r = await exited;
      clearTimeout(t);
      return r;
    },
  };
}

/** Runs the operator CLI (dist) to completion; returns its exit code and output. */
export async function runCli(env: Record<string, string>, args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [CLI_JS, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
  clearTimeout(t);
  return { code, out };
}
