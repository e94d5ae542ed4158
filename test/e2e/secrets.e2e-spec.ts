import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { openDatabase } from 'src/db/data-source';
import { CompileJobsWorker } from 'src/modules/memories/compile-jobs.worker';
import { MEMORY_COMPILER } from 'src/modules/memories/memory-compiler';
import type { MemoryCompiler } from 'src/compiler/compiler.types';
import { createTestApp } from '../app-factory';

/** Log lines of an app, parsed. */
function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe('nothing secret in the wrong place', () => {
  it('reports the database location (logged at start-up, printed by the CLI) without a password, even a ?password= holding / and @', async () => {
    const secret = 'pa/ss@wo/rd-7f3a';
    const base = process.env.TEST_DB_URL!;
    const db = await openDatabase({ databaseUrl: `${base}${base.includes('?') ? '&' : '?'}password=${secret}`, dataDir: '', databasePoolSize: 1 });
    try {
      expect(await db.dataSource.query(`SELECT 1 AS ok`)).toEqual([{ ok: 1 }]);
      expect(db.location).toMatch(/password=\*\*\*$/);
      expect(db.location).not.toContain('pa/ss');
    } finally {
      await db.close();
    }
  });

  it('serves the embedded engine on a Unix socket in a directory only this user can enter, not on a TCP port', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'memsvc-secrets-'));
    const db = await openDatabase({ databaseUrl: null, dataDir, databasePoolSize: 1 });
    try {
      const options = db.dataSource.options as { host?: string; url?: string; port?: number };
      expect(options.url).toBeUndefined();
      expect(options.host).toMatch(/^\//);
      const dir = statSync(options.host!);
      expect(dir.isDirectory()).toBe(true);
      expect(dir.mode & 0o077).toBe(0);
      expect(statSync(join(options.host!, `.s.PGSQL.${options.port}`)).isSocket()).toBe(true);
      expect(await db.dataSource.query(`SELECT 1 AS ok`)).toEqual([{ ok: 1 }]);
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // A first PGlite start runs initdb: seconds alone, far more on a loaded CI machine.
  }, 240_000);

  it('shows a tenant a generic error with the request id for a failed compile job, and logs the detail under that id', async () => {
    const log = capture();
    const t = await createTestApp({ SERVICE_LOG_LEVEL: 'info', SERVICE_REQUIRE_TENANT: 'true' }, { logStream: log.stream });
    try {
      const internal = 'connect ECONNREFUSED 10.20.30.40:5432 during SELECT * FROM memories WHERE tenant_id = $1';
      await request(t.http).post('/v1/episodes').set('X-Tenant-ID', 'acme').send({ subject_id: 'job-err', source: 'user', type: 'note', payload: { text: 'My name is Ada.' } }).expect(201);
      const compiler = t.app.get<MemoryCompiler>(MEMORY_COMPILER);
      const spy = jest.spyOn(compiler, 'compile').mockRejectedValueOnce(new Error(internal));
      const { body } = await request(t.http).post('/v1/memories/compile').set('X-Tenant-ID', 'acme').send({ subject_id: 'job-err', async: true }).expect(202);
      try {
        await t.app.get(CompileJobsWorker).runOnce();
      } finally {
        spy.mockRestore();
      }
      const status = await request(t.http).get(`/v1/memories/compile/${body.job_id}`).set('X-Tenant-ID', 'acme').expect(200);
      expect(status.body.status).toBe('failed');
      expect(status.body.error).toContain(`request id job:${body.job_id}`);
      expect(JSON.stringify(status.body)).not.toMatch(/10\.20\.30\.40|SELECT|ECONNREFUSED/);
      const logged = log.lines.find((l) => l.request_id === `job:${body.job_id}` && l.msg === 'compile job failed');
      expect(JSON.stringify(logged)).toContain('10.20.30.40');
    } finally {
      await t.close();
    }
  });
});
