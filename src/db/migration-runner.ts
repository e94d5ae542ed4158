import { DataSource, QueryRunner } from 'typeorm';
import { AdvisoryLock, withSessionLock } from '../common/db/advisory-locks';
import { EXPECTED_HEAD, MIGRATIONS, Revision } from './migrations';

/**
 * Revision-based migrations (upgrade head / +N, downgrade to a revision, --sql dry runs).
 * Applied revisions are rows of `schema_migrations`. Each step runs in its own transaction
 * under an advisory lock, so two replicas starting at once migrate once.
 */
export interface MigrationStatus {
  current_revision: string | null;
  expected_head: string;
  applied: string[];
  pending: string[];
  unknown: string[];
}

export interface StepResult {
  revision: string;
  direction: 'up' | 'down';
  sql: string[];
}

export function allRevisions(): string[] {
  return MIGRATIONS.map((M) => new M().revision);
}

/** A revision given as its full id or its number prefix (`0010`). */
export function resolveRevision(name: string): string | undefined {
  const all = allRevisions();
  return all.find((r) => r === name) ?? all.find((r) => r.split('_')[0] === name);
}

async function ensureTable(q: QueryRunner): Promise<void> {
  await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (revision varchar(128) PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Queryable = { query(sql: string, params?: unknown[]): Promise<any> };

export async function readStatus(db: Queryable): Promise<MigrationStatus> {
  const exists = await db.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`);
  const applied: string[] = exists[0].ok
    ? (await db.query(`SELECT revision FROM schema_migrations`)).map((r: { revision: string }) => r.revision)
    : [];
  const all = allRevisions();
  const appliedSet = new Set(applied);
  const known = all.filter((r) => appliedSet.has(r));
  return {
    current_revision: known.length ? known[known.length - 1] : null,
    expected_head: EXPECTED_HEAD,
    applied: known,
    pending: all.filter((r) => !appliedSet.has(r)),
    unknown: applied.filter((r) => !all.includes(r)),
  };
}

/** Wraps a query runner so every statement is recorded (for --sql and for logs). */
function recording(q: QueryRunner, sink: string[]): QueryRunner {
  return new Proxy(q, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (sql: string, params?: unknown[]) => {
          sink.push(sql.replace(/\s+/g, ' ').trim() + (params?.length ? ` -- params: ${JSON.stringify(params)}` : ''));
          return target.query(sql, params);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

export interface RunOptions {
  /** Record the SQL and roll every step back: nothing changes. */
  dryRun?: boolean;
  onStep?: (step: StepResult) => void;
}

async function runSteps(
  ds: DataSource,
  plan: (status: MigrationStatus) => { revision: string; direction: 'up' | 'down' }[],
  opts: RunOptions,
): Promise<StepResult[]> {
  // Everything runs on one connection: the embedded engine has exactly one.
  const q = ds.createQueryRunner();
  const results: StepResult[] = [];
  await q.connect();
  try {
    await withSessionLock(q, AdvisoryLock.Migrations, true, async () => {
      // DDL over large tables may run longer than SERVICE_DATABASE_STATEMENT_TIMEOUT_MS allows
      // requests; RESET afterwards returns the pooled connection to its configured limit.
      await q.query(`SET statement_timeout = 0`);
      try {
        // A dry run is one transaction rolled back at the end, because each step needs the
        // schema the previous one made.
        if (opts.dryRun) await q.startTransaction();
        await ensureTable(q);
        const steps = plan(await readStatus(q));
        for (const step of steps) {
          const M = MIGRATIONS.find((m) => new m().revision === step.revision)!;
          const migration: Revision = new M();
          const sql: string[] = [];
          if (!opts.dryRun) await q.startTransaction();
          try {
            // Migrations span every tenant: declared so, row-level security (0018) shows them every row.
            await q.query(`SELECT set_config('app.cross_tenant', 'on', true)`);
            const rq = recording(q, sql);
            if (step.direction === 'up') {
              await migration.up(rq);
              await q.query(`INSERT INTO schema_migrations (revision) VALUES ($1)`, [step.revision]);
            } else {
              await migration.down(rq);
              await q.query(`DELETE FROM schema_migrations WHERE revision = $1`, [step.revision]);
            }
            if (!opts.dryRun) await q.commitTransaction();
          } catch (err) {
            await q.rollbackTransaction();
            throw new Error(`migration ${step.revision} (${step.direction}) failed: ${(err as Error).message}`);
          }
          const result = { ...step, sql };
          results.push(result);
          opts.onStep?.(result);
        }
        if (opts.dryRun) await q.rollbackTransaction();
      } finally {
        if (q.isTransactionActive) await q.rollbackTransaction();
        await q.query(`RESET statement_timeout`);
      }
    });
  } finally {
    await q.release();
  }
  return results;
}

export async function upgrade(ds: DataSource, target: string, opts: RunOptions = {}): Promise<StepResult[]> {
  return runSteps(
    ds,
    (status) => {
      let pending = status.pending;
      if (/^\+\d+$/.test(target)) pending = pending.slice(0, Number(target.slice(1)));
      else if (target !== 'head') {
        const rev = resolveRevision(target);
        if (!rev) throw new Error(`unknown revision ${JSON.stringify(target)}`);
        const all = allRevisions();
        pending = pending.filter((r) => all.indexOf(r) <= all.indexOf(rev));
      }
      return pending.map((revision) => ({ revision, direction: 'up' as const }));
    },
    opts,
  );
}

export async function downgrade(ds: DataSource, target: string, opts: RunOptions = {}): Promise<StepResult[]> {
  return runSteps(
    ds,
    (status) => {
      const all = allRevisions();
      let keep: number;
      if (target === 'base') keep = -1;
      else if (/^-\d+$/.test(target)) keep = all.indexOf(status.current_revision ?? '') - Number(target.slice(1));
      else {
        const rev = resolveRevision(target);
        if (!rev) throw new Error(`unknown revision ${JSON.stringify(target)}`);
        keep = all.indexOf(rev);
      }
      return status.applied
        .filter((r) => all.indexOf(r) > keep)
        .reverse()
        .map((revision) => ({ revision, direction: 'down' as const }));
    },
    opts,
  );
}
