import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { exportCommand, importCommand } from 'src/cli/transfer.command';
import { loadConfig } from 'src/config/app-config';
import { createTestApp, testEnv } from '../app-factory';
import { captureOutput } from '../cli-capture';

const quiet = captureOutput;

describe('export and import CLI commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memsvc-cli-'));
  const config = () => loadConfig(testEnv());

  beforeAll(async () => {
    const t = await createTestApp();
    await request(t.http)
      .post('/v1/episodes')
      .send({ subject_id: 'cli/subject', source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content: 'Grüße 😀' }], w: 1.0 } })
      .expect(201);
    await t.ds.query(`INSERT INTO memories (subject_id, kind, content, confidence, embedding) VALUES ('cli/subject', 'profile_fact', 'fact', 1, '{0.5}')`);
    // The embedded engine serves one connection: the commands open their own.
    await t.close();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports to a file and imports it back as a copy with new ids', async () => {
    const file = join(dir, 'subject.json');
    const exported = await quiet(() => exportCommand(config(), ['cli/subject', '--out', file]));
    expect(exported.value).toBe(0);
    expect(exported.stderr).toMatch(/exported 1 episode\(s\), 1 memory\(ies\)/);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc).toMatchObject({ format_version: '1.0', subject_id: 'cli/subject', counts: { episodes: 1, memories: 1 } });

    const imported = await quiet(() => importCommand(config(), [file, '--target-subject', 'cli/copy', '--target-tenant', 'acme', '--no-preserve-ids']));
    expect(JSON.parse(imported.stdout)).toEqual({ subject_id: 'cli/copy', tenant_id: 'acme', episodes_imported: 1, memories_imported: 1, receipts_imported: 0, ids_preserved: false });
    await expect(quiet(() => importCommand(config(), [file]))).rejects.toThrow(/^ID conflict/);
  });

  it('fails on an unknown subject without leaving a file behind', async () => {
    const file = join(dir, 'none.json');
    await expect(quiet(() => exportCommand(config(), ['nobody', '--out', file]))).rejects.toThrow(/no episodes or memories/);
    expect(existsSync(file) || existsSync(`${file}.partial`)).toBe(false);
  });

  it('streams to stdout without --out', async () => {
    const res = await quiet(() => exportCommand(config(), ['cli/subject']));
    expect(JSON.parse(res.stdout)).toMatchObject({ subject_id: 'cli/subject' });
  });
});
