/**
 * What Express's per-request prototype change costs, and what the service's server does about it
 * (src/common/http/express-server.ts): `npm run build && node dist/bench/perf/http-prototypes.js
 * [--requests 6000] [--conc 8] [--rounds 2]`. No database.
 *
 * Starts one small server per variant in its own process (run with `--trace-gc-nvp`, so V8 reports
 * every collection on its stdout), each answering `GET /healthz` with `{"status":"ok"}`:
 *
 * - `node:http`: a bare request listener, the floor;
 * - `express`: an Express 5 app on `http.createServer(app)`, as Nest's adapter builds it: Express
 *   gives each request and response its prototype with `Object.setPrototypeOf`;
 * - `express, function constructors`: the same app on a server whose request and response
 *   constructors are plain functions with the app's prototypes that call node's constructors on
 *   `this` (the first form of the change): no prototype change, but objects sized for the
 *   function's own fields, which node's then push into dictionary mode;
 * - `express, born with its prototypes`: the same app on the server of `expressServerClasses`,
 *   whose requests and responses are constructed, by subclasses of node's, with the app's
 *   prototypes already.
 *
 * Warms each with 2,000 requests, then sends `--requests` at `--conc` from this process, the
 * variants one after another and again in reverse order for each of `--rounds` (the machine
 * drifts), and prints per variant: requests/s, p50/p99, the server's CPU per request (/proc), and
 * from the young-generation collections during the measured requests the bytes allocated per
 * request and the share of them promoted to the old generation, with the number of full
 * collections (Mark-Compact).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import express from 'express';
import { expressServerClasses, type ExpressPrototypes } from 'src/common/http/express-server';
import { client, load } from '../common/http';
import { arg, cpuMs } from '../common/service';
import { summarise } from '../common/stats';

const VARIANTS = ['node:http', 'express', 'express, function constructors', 'express, born with its prototypes'] as const;
type Variant = (typeof VARIANTS)[number];

/** Constructors that are plain functions given the app's prototypes (see `express, function constructors`). */
function functionConstructors(app: ExpressPrototypes): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  function Request(this: IncomingMessage, socket: Socket): void {
    (IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void).call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return { IncomingMessage: Request as unknown as typeof IncomingMessage, ServerResponse: Response as unknown as typeof ServerResponse };
}

/** Child side: one server of `variant` on a free port; prints `port N`. */
function serve(variant: Variant): void {
  const ok = '{"status":"ok"}';
  const app = express();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const server =
    variant === 'node:http'
      ? createServer((_req: IncomingMessage, res: ServerResponse) => {
          res.setHeader('content-type', 'application/json');
          res.end(ok);
        })
      : variant === 'express'
        ? createServer(app)
        : variant === 'express, function constructors'
          ? createServer(functionConstructors(app as unknown as ExpressPrototypes), app)
          : createServer(expressServerClasses(app as unknown as ExpressPrototypes), app);
  server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
}

interface Running {
  child: ChildProcess;
  port: number;
  /** stdout lines so far (V8's --trace-gc-nvp output). */
  lines: string[];
}

async function start(variant: Variant): Promise<Running> {
  const child = spawn(process.execPath, ['--trace-gc-nvp', __filename, '--serve', variant], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let rest = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${variant} server exited (${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        const m = /^port (\d+)$/.exec(line);
        if (m) resolve(Number(m[1]));
        else lines.push(line);
      }
    });
  });
  return { child, port, lines };
}

/** Sums of V8's per-collection figures over `lines`: young collections and full ones. */
function gcFigures(lines: string[]): { allocated: number; promoted: number; scavenges: number; fullCollections: number } {
  let allocated = 0;
  let promoted = 0;
  let scavenges = 0;
  let fullCollections = 0;
  for (const line of lines) {
    const field = (name: string) => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
    if (/\bgc=s\b/.test(line)) {
      scavenges++;
      allocated += field('allocated');
      promoted += field('promoted');
    } else if (/\bgc=mc\b/.test(line)) fullCollections++;
  }
  return { allocated, promoted, scavenges, fullCollections };
}

interface Tally {
  n: number;
  wallMs: number;
  samples: number[];
  cpuMs: number;
  allocated: number;
  promoted: number;
  fullCollections: number;
}

async function main(): Promise<void> {
  const requests = Number(arg('requests', '6000'));
  const conc = Number(arg('conc', '8'));
  const rounds = Number(arg('rounds', '2'));
  const running = new Map<Variant, Running>();
  const tally = new Map<Variant, Tally>(VARIANTS.map((v) => [v, { n: 0, wallMs: 0, samples: [], cpuMs: 0, allocated: 0, promoted: 0, fullCollections: 0 }]));
  try {
    for (const v of VARIANTS) {
      const r = await start(v);
      running.set(v, r);
      const api = client(`http://127.0.0.1:${r.port}`);
      await load(2000, conc, () => api.call('GET', '/healthz'));
    }
    const order: Variant[] = [];
    for (let i = 0; i < rounds; i++) order.push(...VARIANTS, ...[...VARIANTS].reverse());
    for (const v of order) {
      const r = running.get(v)!;
      const api = client(`http://127.0.0.1:${r.port}`);
      const from = r.lines.length;
      const cpu0 = cpuMs(r.child.pid!);
      const res = await load(requests, conc, () => api.call('GET', '/healthz'));
      const cpu1 = cpuMs(r.child.pid!);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const gc = gcFigures(r.lines.slice(from));
      const t = tally.get(v)!;
      t.n += requests;
      t.wallMs += res.wallMs;
      t.samples.push(...res.samples);
      t.cpuMs += cpu1 - cpu0;
      t.allocated += gc.allocated;
      t.promoted += gc.promoted;
      t.fullCollections += gc.fullCollections;
    }
  } finally {
    for (const r of running.values()) r.child.kill();
  }
  const out = VARIANTS.map((v) => {
    const t = tally.get(v)!;
    const s = summarise(t.samples, t.wallMs);
    return {
      variant: v,
      requests: t.n,
      rate_per_s: s.throughput_per_s,
      p50: s.p50,
      p99: s.p99,
      server_cpu_ms_per_request: Math.round((t.cpuMs / t.n) * 1000) / 1000,
      allocated_kb_per_request: Math.round(t.allocated / t.n / 102.4) / 10,
      promoted_share: Math.round((t.promoted / Math.max(1, t.allocated)) * 1000) / 10,
      full_collections: t.fullCollections,
    };
  });
  console.log(`GET /healthz at concurrency ${conc}, ${rounds * 2} × ${requests} requests per variant`);
  for (const o of out) {
    console.log(
      `${o.variant.padEnd(34)} ${String(o.rate_per_s).padStart(9)}/s  p50 ${o.p50} p99 ${o.p99} ms  CPU ${o.server_cpu_ms_per_request} ms/req  ` +
        `allocated ${o.allocated_kb_per_request} KB/req, ${o.promoted_share}% promoted, ${o.full_collections} full collections`,
    );
  }
  console.log(JSON.stringify(out));
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) serve(process.argv[serveAt + 1] as Variant);
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
