import request from 'supertest';
import { preflightCommand } from 'src/cli/migrate.command';
import { loadConfig } from 'src/config/app-config';
import { downgrade, readStatus, upgrade } from 'src/db/migration-runner';
import { EXPECTED_HEAD, MIGRATIONS } from 'src/db/migrations';
import { createTestApp, isPglite, testEnv } from '../app-factory';
import { schemaSignature, useScratchDb } from '../support/scratch-db';

// Every revision name in order: expectations follow the list, so a new migration needs no edit here.
const REVISIONS = MIGRATIONS.map((m) => new m().revision);
const after = (revision: string) => REVISIONS.slice(REVISIONS.indexOf(revision) + 1);

describe('migrations', () => {
  const scratch = useScratchDb();

  it('a dry run (--sql) of upgrade head returns the SQL and changes nothing', async () => {
    const steps = await upgrade(scratch.ds, 'head', { dryRun: true });
    expect(steps).toHaveLength(REVISIONS.length);
    expect(steps[0].sql.join('\n')).toContain('CREATE TABLE episodes');
    expect((await readStatus(scratch.ds)).current_revision).toBeNull();
    expect(await schemaSignature(scratch.ds)).toEqual([]);
  });

  it('upgrade +1 applies exactly one revision', async () => {
    const steps = await upgrade(scratch.ds, '+1');
    expect(steps.map((s) => s.revision)).toEqual(['0001_initial_schema']);
    expect((await readStatus(scratch.ds)).current_revision).toBe('0001_initial_schema');
  });

  it('upgrade head reaches the expected head with every table the contract needs', async () => {
    await upgrade(scratch.ds, 'head');
    const status = await readStatus(scratch.ds);
    expect(status.current_revision).toBe(EXPECTED_HEAD);
    expect(status.pending).toEqual([]);
    const sig = await schemaSignature(scratch.ds);
    for (const line of [
      'episodes.tenant_id character varying',
      'episodes.session_id character varying',
      'episodes.last_compiled_at timestamp with time zone',
      'memories.embedding ARRAY',
      'memories.valid_to timestamp with time zone',
      'memories.origin character varying not null',
      'memories.idempotency_key character varying',
      'compile_jobs.tenant_id character varying',
      'webhook_events.status character varying not null',
      'rate_limits.hits integer not null',
      'resolutions.resolved_at timestamp with time zone',
      'health_cache.state character varying not null',
      'snapshots.version integer not null',
      'api_keys.role character varying not null',
    ]) {
      expect(sig).toContain(line);
    }
    expect(sig.some((l) => l.startsWith('memories.embedding_vec'))).toBe(isPglite());
    expect(sig.some((l) => l.includes('ix_episodes_tenant_subject_created'))).toBe(true);
  });

  it('downgrade to a revision, then upgrade head again, gives the same schema (up/down/up)', async () => {
    const atHead = await schemaSignature(scratch.ds);
    await downgrade(scratch.ds, '0008');
    expect((await readStatus(scratch.ds)).current_revision).toBe('0008_add_tenant_id_columns');
    expect((await schemaSignature(scratch.ds)).some((l) => l.startsWith('health_cache.'))).toBe(false);
    await downgrade(scratch.ds, 'base');
    expect(await schemaSignature(scratch.ds)).toEqual([]);
    await upgrade(scratch.ds, 'head');
    expect(await schemaSignature(scratch.ds)).toEqual(atHead);
  });

  it('a downgrade dry run changes nothing', async () => {
    const steps = await downgrade(scratch.ds, '0010', { dryRun: true });
    expect(steps.map((s) => s.revision)).toEqual(after('0010_episode_sessions_and_search').reverse());
    expect((await readStatus(scratch.ds)).current_revision).toBe(EXPECTED_HEAD);
  });

  it('refuses an unknown revision name', async () => {
    await expect(upgrade(scratch.ds, '0099_nope')).rejects.toThrow(/unknown revision/);
  });
});

describe('schema guard and preflight', () => {
  // The app under test connects by URL: the setup migrates through a connection of its own and closes it.
  const scratch = useScratchDb(async (db) => {
    const ds = await db.open();
    await upgrade(ds, '0009');
    await ds.destroy();
    return null;
  });

  const env = () => ({ SERVICE_DATABASE_URL: scratch.db.url, SERVICE_DATABASE_POOL_SIZE: String(scratch.db.poolSize) });

  it('preflight says NO-GO (exit 2) with pending migrations', async () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await preflightCommand(loadConfig(testEnv(env())))).toBe(2);
      const printed = write.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toContain('current revision : 0009_add_rate_limit_table');
      expect(printed).toContain(`pending          : ${after('0009_add_rate_limit_table').length}`);
      expect(printed).toContain('NO-GO');
    } finally {
      write.mockRestore();
    }
  });

  it('with STRICT_SCHEMA=1 the app refuses to start on a schema behind head', async () => {
    await expect(createTestApp({ ...env(), SERVICE_STRICT_SCHEMA: '1' }, { reset: false })).rejects.toThrow(/STRICT_SCHEMA: refusing to start/);
  });

  it('without STRICT_SCHEMA the app starts and /ops/migrations reports the mismatch', async () => {
    const t = await createTestApp(env(), { reset: false });
    try {
      const res = await request(t.http).get('/ops/migrations').expect(200);
      expect(res.body).toMatchObject({
        current_revision: '0009_add_rate_limit_table',
        expected_head: EXPECTED_HEAD,
        is_compatible: false,
        pending_count: after('0009_add_rate_limit_table').length,
        pending_revisions: after('0009_add_rate_limit_table'),
        error: null,
      });
    } finally {
      await t.close();
    }
  });

  it('with AUTO_MIGRATE=true the app migrates to head on start and preflight says GO', async () => {
    const t = await createTestApp({ ...env(), SERVICE_AUTO_MIGRATE: 'true' }, { reset: false });
    try {
      expect((await request(t.http).get('/ops/migrations').expect(200)).body.is_compatible).toBe(true);
    } finally {
      await t.close();
    }
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await preflightCommand(loadConfig(testEnv(env())))).toBe(0);
    } finally {
      write.mockRestore();
    }
  });
});
