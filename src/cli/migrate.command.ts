import type { AppConfig } from 'src/config/app-config';
import { openDatabase } from 'src/db/data-source';
import { allRevisions, downgrade, readStatus, StepResult, upgrade } from 'src/db/migration-runner';
import { schemaReport } from 'src/db/schema-guard';
import { parseCliArgs } from './cli-args';

const err = (s: string) => process.stderr.write(s + '\n');
const out = (s: string) => process.stdout.write(s + '\n');

export async function migrateCommand(config: AppConfig, args: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(args, { sql: { type: 'boolean' } });
  const [action, target] = positionals;
  const dryRun = values.sql === true;
  // A migration may rebuild an index over a large table: no client-side query limit here (the
  // runner lifts the statement timeout for its own session).
  const db = await openDatabase({ ...config, databaseQueryTimeoutMs: 0 });
  err(`database: ${db.engine} ${db.location}`);
  try {
    const onStep = (s: StepResult) => {
      if (dryRun) {
        out(`-- ${s.direction} ${s.revision}`);
        for (const line of s.sql) out(`${line};`);
      } else err(`${s.direction === 'up' ? 'applied' : 'reverted'} ${s.revision} (${s.sql.length} statements)`);
    };
    switch (action) {
      case 'upgrade': {
        if (!target) throw new Error('upgrade needs a target: head, +N or a revision');
        const steps = await upgrade(db.dataSource, target, { dryRun, onStep });
        err(dryRun ? `dry run: ${steps.length} step(s) shown, nothing changed` : `done: ${steps.length} migration(s) applied`);
        return 0;
      }
      case 'downgrade': {
        if (!target) throw new Error('downgrade needs a target: a revision, -N or base');
        const steps = await downgrade(db.dataSource, target, { dryRun, onStep });
        err(dryRun ? `dry run: ${steps.length} step(s) shown, nothing changed` : `done: ${steps.length} migration(s) reverted; deploy the app version matching this revision`);
        return 0;
      }
      case 'current': {
        const status = await readStatus(db.dataSource);
        out(status.current_revision ?? 'base');
        return 0;
      }
      case 'history': {
        const status = await readStatus(db.dataSource);
        for (const rev of allRevisions()) out(`${status.applied.includes(rev) ? '[x]' : '[ ]'} ${rev}`);
        return 0;
      }
      default:
        throw new Error(`unknown migrate action ${JSON.stringify(action ?? '')}: use upgrade, downgrade, current or history`);
    }
  } finally {
    await db.close();
  }
}

/** Exit 0 = GO (schema at head), 2 = NO-GO. */
export async function preflightCommand(config: AppConfig): Promise<number> {
  let report;
  try {
    const db = await openDatabase(config);
    try {
      report = schemaReport(await readStatus(db.dataSource));
    } finally {
      await db.close();
    }
  } catch (e) {
    report = schemaReport(null, (e as Error).message);
  }
  out(`current revision : ${report.current_revision ?? 'base (empty)'}`);
  out(`expected head    : ${report.expected_head}`);
  out(`pending          : ${report.pending_count}${report.pending_count ? ` (${report.pending_revisions.join(', ')})` : ''}`);
  out(`compatible       : ${report.is_compatible}`);
  if (report.error) out(`error            : ${report.error}`);
  const go = report.is_compatible && report.pending_count === 0;
  out(go ? 'GO: schema is at head; start the new version.' : `NO-GO: ${report.summary}`);
  return go ? 0 : 2;
}
