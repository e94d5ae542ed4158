import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import type { TenantScope } from 'src/common/db/tenant-scope';
import { metrics } from 'src/common/metrics/metrics';
import { baseOptions, DatabaseSettings, timeLimitOptions } from './data-source';

/** How one replica stands, for /readyz and metrics. */
export interface ReplicaStatus {
  name: string;
  /** ok: serves reads; lagging: behind the primary by more than the bound; down: unreachable or not a standby. */
  state: 'ok' | 'lagging' | 'down';
  /** Estimated replay lag behind the primary, seconds (null while unknown). */
  lag_seconds: number | null;
}

export interface ReadRoutingSettings {
  urls: string[];
  poolSize: number;
  /** The primary's connection time limits, applied to the replicas' connections too. */
  limits?: DatabaseSettings;
  maxLagMs: number;
  windowMs: number;
  /** How often replicas and the primary's WAL position are sampled. */
  checkMs?: number;
}

interface Replica {
  name: string;
  ds: DataSource;
  state: ReplicaStatus['state'];
  /** Replayed WAL position (bytes since 0/0), as last seen. */
  replayed: bigint;
  lagMs: number | null;
  connecting: Promise<void> | null;
}

interface Fence {
  lsn: bigint;
  expires: number;
}

/** Where one read went and why (the `reason` label of memory_db_reads_total). */
type Route = { em: EntityManager; replica: Replica | null; reason: 'replica' | 'no_replica' | 'unreplayed_write' };

/** Fences kept before the oldest are folded into one conservative fence for everyone. */
const MAX_FENCES = 100_000;
/** A fence no replica passes (the largest WAL position): the write's own position is unknown. */
export const UNKNOWN_WRITE_POSITION = 2n ** 64n - 1n;
/** Primary WAL samples kept to turn a replica's replay position into a lag in seconds. */
const MAX_SAMPLES = 600;
const REPLICA_CONNECT_TIMEOUT_MS = 1000;

/**
 * Read routing over PostgreSQL streaming replicas, with read-your-writes.
 *
 * Reads that may be slightly stale (context, search, timeline, listings, SLA) run through
 * `read(scope, subject, work)`. Writes call `wrote(scope, subjects)` after their commit: the
 * primary's WAL position then is remembered per (tenant, subject) for the window, and a read of
 * that subject uses a replica only once the replica has replayed past it (checked with one
 * `pg_last_wal_replay_lsn()` round trip when the sampled value is not enough), else the primary.
 * A replica that is unreachable or further behind than the bound (lag estimated from sampled
 * primary positions: the age of the oldest sample it has not replayed) gets no reads; a read
 * that fails on a replica for a replica reason (connection lost, shutdown, recovery conflict)
 * is run again on the primary, so a replica going away is never a client error.
 *
 * The fences live in this process: a client that writes through one service process and reads
 * through another (another host) is protected only by the lag bound. Cluster workers on one
 * host share fences over IPC (see src/cluster).
 */
export class ReadRouter {
  private readonly logger = new Logger('read-replicas');
  private readonly replicas: Replica[];
  private readonly fences = new Map<string, Fence>();
  /** Fence for every key, used when the map overflows: conservative (more primary reads), never wrong. */
  private overflow: Fence | null = null;
  private readonly samples: { at: number; lsn: bigint }[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** Called with every fence this process sets, so sibling processes can apply it (cluster IPC). */
  onFence: ((key: string, lsn: string, expires: number) => void) | null = null;

  constructor(
    private readonly primary: DataSource,
    private readonly settings: ReadRoutingSettings,
  ) {
    this.replicas = settings.urls.map((url, i) => ({
      name: `replica-${i}`,
      ds: new DataSource(replicaOptions(url, settings)),
      state: 'down',
      replayed: 0n,
      lagMs: null,
      connecting: null,
    }));
  }

  /** A router with no replicas: every read on the primary (CLI commands). */
  static primaryOnly(primary: DataSource): ReadRouter {
    return new ReadRouter(primary, { urls: [], poolSize: 1, maxLagMs: 1, windowMs: 2 });
  }

  get enabled(): boolean {
    return this.replicas.length > 0;
  }

  /** First check (bounded by the connect timeout), then one every checkMs. */
  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), this.settings.checkMs ?? 250);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking;
    await Promise.all(this.replicas.map((r) => (r.ds.isInitialized ? r.ds.destroy().catch(() => undefined) : undefined)));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, lag_seconds: r.lagMs === null ? null : r.lagMs / 1000 }));
  }

  /** Runs a read on a replica when one may serve it, else on the primary; a replica failure falls back to the primary. */
  async read<T>(scope: TenantScope, subjectId: string | null, work: (em: EntityManager) => Promise<T>): Promise<T> {
    if (!this.enabled) return work(this.primary.manager);
    const route = await this.route(scope, subjectId);
    if (route.replica === null) {
      metrics.dbReads.inc({ target: 'primary', reason: route.reason });
      return work(route.em);
    }
    try {
      const result = await work(route.em);
      metrics.dbReads.inc({ target: 'replica', reason: route.reason });
      return result;
    } catch (err) {
      if (!isReplicaFailure(err)) throw err;
      this.markDown(route.replica, err);
      metrics.dbReads.inc({ target: 'primary', reason: 'replica_failed' });
      return work(this.primary.manager);
    }
  }

  /**
   * After a commit: remember the primary's WAL position for these subjects (null: every subject
   * of the tenant, for imports and restores). One round trip, only when replicas are configured.
   */
  async wrote(scope: TenantScope, subjectIds: Iterable<string> | null): Promise<void> {
    if (!this.enabled) return;
    let lsn: bigint;
    try {
      const [row] = await this.primary.query(`SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn`);
      lsn = BigInt(row.lsn);
    } catch (err) {
      // The write has committed: failing here would answer 5xx for it (and clients retry 5xx).
      // Without its position, no replica counts as caught up: the subjects read from the
      // primary for the whole window.
      this.logger.warn({ err: { message: (err as Error).message } }, 'WAL position after a commit unavailable; the written subjects read from the primary for the window');
      lsn = UNKNOWN_WRITE_POSITION;
    }
    const expires = Date.now() + this.settings.windowMs;
    const keys = subjectIds === null ? [fenceKey(scope.tenantId, null)] : [...new Set(subjectIds)].map((s) => fenceKey(scope.tenantId, s));
    for (const key of keys) {
      this.fence(key, lsn, expires);
      this.onFence?.(key, String(lsn), expires);
    }
  }

  /** A fence set by a sibling process (cluster worker). */
  applyFence(key: string, lsn: string, expires: number): void {
    this.fence(key, BigInt(lsn), expires);
  }

  private fence(key: string, lsn: bigint, expires: number): void {
    const prev = this.fences.get(key);
    if (prev && prev.lsn >= lsn && prev.expires >= expires) return;
    this.fences.delete(key);
    this.fences.set(key, { lsn: prev && prev.lsn > lsn ? prev.lsn : lsn, expires });
    if (this.fences.size > MAX_FENCES) {
      const now = Date.now();
      for (const [k, f] of this.fences) {
        if (this.fences.size <= MAX_FENCES / 2) break;
        this.fences.delete(k);
        if (f.expires > now) this.overflow = { lsn: this.overflow && this.overflow.lsn > f.lsn ? this.overflow.lsn : f.lsn, expires: Math.max(f.expires, this.overflow?.expires ?? 0) };
      }
    }
  }

  /** The WAL position a read of this subject must see, or 0 when any healthy replica will do. */
  private required(scope: TenantScope, subjectId: string | null): bigint {
    const now = Date.now();
    let need = 0n;
    const keys = [fenceKey(scope.tenantId, null), ...(subjectId === null ? [] : [fenceKey(scope.tenantId, subjectId)])];
    for (const key of keys) {
      const f = this.fences.get(key);
      if (!f) continue;
      if (f.expires <= now) this.fences.delete(key);
      else if (f.lsn > need) need = f.lsn;
    }
    if (this.overflow && this.overflow.expires > now && this.overflow.lsn > need) need = this.overflow.lsn;
    return need;
  }

  private async route(scope: TenantScope, subjectId: string | null): Promise<Route> {
    const healthy = this.replicas.filter((r) => r.state === 'ok');
    if (healthy.length === 0) return { em: this.primary.manager, replica: null, reason: 'no_replica' };
    const replica = healthy[this.next++ % healthy.length];
    const need = this.required(scope, subjectId);
    if (need > replica.replayed) {
      try {
        replica.replayed = await replayedPosition(replica.ds);
      } catch (err) {
        this.markDown(replica, err);
        return { em: this.primary.manager, replica: null, reason: 'no_replica' };
      }
      if (need > replica.replayed) return { em: this.primary.manager, replica: null, reason: 'unreplayed_write' };
    }
    return { em: replica.ds.manager, replica, reason: 'replica' };
  }

  private markDown(replica: Replica, err: unknown): void {
    if (replica.state !== 'down') this.logger.warn({ replica: replica.name, err: { message: (err as Error).message } }, 'read replica unavailable; its reads go to the primary');
    replica.state = 'down';
    replica.lagMs = null;
    this.report(replica);
  }

  private report(replica: Replica): void {
    metrics.dbReplicaUp.set({ replica: replica.name }, replica.state === 'ok' ? 1 : 0);
    if (replica.lagMs === null) metrics.dbReplicaLag.remove({ replica: replica.name });
    else metrics.dbReplicaLag.set({ replica: replica.name }, replica.lagMs / 1000);
  }

  /** One sampling round; rounds never overlap. */
  check(): Promise<void> {
    this.checking ??= this.sample().finally(() => (this.checking = null));
    return this.checking;
  }

  private async sample(): Promise<void> {
    const now = Date.now();
    try {
      const [{ lsn }] = await this.primary.query(`SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS lsn`);
      const pos = BigInt(lsn);
      const last = this.samples[this.samples.length - 1];
      if (!last || pos > last.lsn) this.samples.push({ at: now, lsn: pos });
      if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES);
    } catch {
      // Primary unreachable: /readyz says so; replica states keep their last lag.
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, now)));
  }

  private async checkReplica(replica: Replica, now: number): Promise<void> {
    const before = replica.state;
    try {
      if (!replica.ds.isInitialized) {
        replica.connecting ??= replica.ds.initialize().then(() => undefined).finally(() => (replica.connecting = null));
        await replica.connecting;
      }
      const [row] = await replica.ds.query(`SELECT pg_is_in_recovery() AS standby, (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text AS replayed`);
      if (!row.standby || row.replayed === null) throw new Error('not a standby (pg_is_in_recovery() is false): refusing to read from it');
      replica.replayed = BigInt(row.replayed);
      // Lag: age of the oldest primary position the replica has not replayed yet.
      const behind = this.samples.find((s) => s.lsn > replica.replayed);
      replica.lagMs = behind ? now - behind.at : 0;
      replica.state = replica.lagMs > this.settings.maxLagMs ? 'lagging' : 'ok';
      if (replica.state !== before) {
        const log = replica.state === 'ok' ? 'read replica serving reads' : 'read replica lags past the bound; its reads go to the primary';
        if (replica.state === 'ok') this.logger.log({ replica: replica.name }, log);
        else this.logger.warn({ replica: replica.name, lag_seconds: replica.lagMs / 1000 }, log);
      }
      this.report(replica);
    } catch (err) {
      // The pool drops broken connections itself; a failed initialize is retried next round.
      this.markDown(replica, err);
    }
  }
}

/** The primary's pool options with a short connect timeout, and no extension installs (a standby is read-only). */
function replicaOptions(url: string, settings: ReadRoutingSettings): PostgresDataSourceOptions {
  const base = baseOptions(url, settings.poolSize, false, settings.limits ? timeLimitOptions(settings.limits) : {});
  return { ...base, installExtensions: false, extra: { ...base.extra, connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS } };
}

function fenceKey(tenantId: string | null, subjectId: string | null): string {
  return `${tenantId ?? ''}\u0000${subjectId ?? '*'}`;
}

async function replayedPosition(ds: DataSource): Promise<bigint> {
  const [row] = await ds.query(`SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::text AS replayed`);
  return BigInt(row.replayed ?? 0);
}

/**
 * Errors that say "this replica cannot answer now", not "this query is wrong": lost or refused
 * connections (no SQLSTATE, class 08), shutdown (57P01-57P03), recovery conflicts (40001),
 * resource exhaustion (53xxx), and the read-only refusal (25006) of a read path that writes.
 */
function isReplicaFailure(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  const code = e.code ?? e.driverError?.code;
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') || code === '40001' || code === '25006';
}
