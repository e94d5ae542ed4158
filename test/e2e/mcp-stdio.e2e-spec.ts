import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestApp, testEnv } from '../app-factory';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** The child's environment: the test database, nothing else of ours (an explicit env replaces the SDK's default). */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  for (const [k, v] of Object.entries(testEnv({ SERVICE_REQUIRE_TENANT: 'true', ...extra }))) if (v !== undefined) env[k] = v;
  return env;
}

const structured = <T = Record<string, unknown>>(r: unknown) => (r as CallToolResult).structuredContent as T;

describe('MCP over stdio (node dist/src/cli/main.js mcp)', () => {
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('build first (npx nest build): the stdio test spawns dist/src/cli/main.js');
    // Empty the database, then let go of it: the embedded test engine serves one connection.
    const t = await createTestApp();
    await t.close();
  });

  it('refuses to start without a tenant when REQUIRE_TENANT is on', () => {
    const run = spawnSync(process.execPath, [CLI, 'mcp'], { cwd: ROOT, env: childEnv(), input: '', encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('--tenant');
    expect(run.stdout).toBe('');
  });

  it('ingests, compiles and fetches context through a spawned stdio server, scoped to --tenant', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--tenant', 'stdio-tenant'], cwd: ROOT, env: childEnv({ SERVICE_LOG_LEVEL: 'info' }), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'mcp-stdio-e2e', version: '1.0.0' });
    try {
      await client.connect(transport);
      const ingested = await client.callTool({
        name: 'ingest_episode',
        arguments: { subject_id: 'stdio-user', source: 'chat', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Ada Quill and I live in Lisbon.' }] } },
      });
      expect(ingested.isError).toBeFalsy();
      const compiled = await client.callTool({ name: 'compile_memories', arguments: { subject_id: 'stdio-user' } });
      expect(structured<{ memories_created: number }>(compiled).memories_created).toBeGreaterThan(0);
      const context = await client.callTool({ name: 'get_context', arguments: { subject_id: 'stdio-user', task: 'Greet Ada' } });
      const bundle = structured<{ assembled_context: string; provenance: { fact_ids: string[] } }>(context);
      expect(bundle.assembled_context).toContain('Ada Quill');
      expect(bundle.provenance.fact_ids.length).toBeGreaterThan(0);

      // No HTTP body parser on this path: the REST DTO rules still answer with the contract's codes.
      const nul = await client.callTool({ name: 'get_health', arguments: { subject_id: 'a\u0000b' } });
      expect(nul.isError).toBe(true);
      expect(structured<{ error: { code: string; details: { loc: string[] }[] } }>(nul).error).toMatchObject({ code: 'validation_error', details: [{ loc: ['arguments', 'subject_id'] }] });
    } finally {
      await client.close();
    }
    // Logs went to stderr, so stdout stayed a clean protocol channel (the calls above parsed).
    expect(stderr).toContain('"msg"');

    const t = await createTestApp({}, { reset: false });
    try {
      const rows = await t.ds.query(`SELECT DISTINCT tenant_id FROM episodes WHERE subject_id = 'stdio-user'`);
      expect(rows).toEqual([{ tenant_id: 'stdio-tenant' }]);
    } finally {
      await t.close();
    }
  });
});
