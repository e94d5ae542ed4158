import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { getMetadataStorage } from 'class-validator';
import { ContextRequestDto } from 'src/modules/context/dto/context.dto';
import { CreateEpisodeDto } from 'src/modules/episodes/dto/create-episode.dto';
import { CompileRequestDto, JobIdParamDto } from 'src/modules/memories/dto/compile.dto';
import { CorrectMemoryDto, MemoryIdParamDto, RememberMemoryDto } from 'src/modules/memories/dto/memory-write.dto';
import { SearchMemoriesQueryDto } from 'src/modules/memories/dto/search.dto';
import { ReceiptIdParamDto } from 'src/modules/receipts/dto/receipt.dto';
import { SubjectParamDto, TimelineQueryDto } from 'src/modules/subjects/dto/subjects.dto';
import { HandoffRequestDto } from 'src/modules/support/dto/handoff.dto';
import { UpsertResolutionDto } from 'src/modules/support/dto/resolution.dto';
import { SlaQueryDto } from 'src/modules/support/dto/sla.dto';
import { createTestApp, TestApp } from '../app-factory';

const KEY = 'mcp-test-key';

function text(result: unknown, i = 0): string {
  const block = (result as CallToolResult).content[i];
  if (block.type !== 'text') throw new Error(`content ${i} is ${block.type}`);
  return block.text;
}

function structured<T = Record<string, unknown>>(result: unknown): T {
  return (result as CallToolResult).structuredContent as T;
}

/** The DTO classes each tool's arguments are checked with (McpService.check), and renamed fields. */
const TOOL_DTOS: Record<string, [new () => object, Record<string, string>?][]> = {
  ingest_episode: [[CreateEpisodeDto]],
  compile_memories: [[CompileRequestDto]],
  get_compile_job: [[JobIdParamDto]],
  get_context: [[ContextRequestDto]],
  search_memories: [[SearchMemoriesQueryDto]],
  remember: [[RememberMemoryDto]],
  get_memory: [[MemoryIdParamDto, { memory_id: 'id' }]],
  correct_memory: [[MemoryIdParamDto, { memory_id: 'id' }], [CorrectMemoryDto]],
  forget_memory: [[MemoryIdParamDto, { memory_id: 'id' }]],
  get_timeline: [[TimelineQueryDto]],
  delete_subject: [[SubjectParamDto]],
  get_health: [[SubjectParamDto]],
  get_sla: [[SubjectParamDto], [SlaQueryDto]],
  create_handoff: [[HandoffRequestDto]],
  get_receipt: [[ReceiptIdParamDto]],
  record_resolution: [[UpsertResolutionDto]],
};

interface JsonSchemaProperty {
  type?: string | string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: unknown[];
  items?: JsonSchemaProperty;
}

/** Where MCP says more than the DTO on purpose. */
const DELIBERATE = new Set([
  // Agents are offered the four kinds; REST takes any kind (compat.md: kinds are open-ended) and an unknown one matches nothing.
  'search_memories.kind enum',
]);

/**
 * Where a tool's JSON schema (generated from its zod shape) bounds a field, the DTO that checks
 * the same field must set the same bound: the MCP schema tells agents the REST limits.
 */
function limitMismatches(tool: string, properties: Record<string, JsonSchemaProperty>): string[] {
  const problems: string[] = [];
  for (const [field, schema] of Object.entries(properties)) {
    const owner = TOOL_DTOS[tool].find(([cls, renames]) => getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).some((m) => m.propertyName === (renames?.[field] ?? field)));
    if (!owner) continue; // a field only MCP has (none today bounds anything the DTO would)
    const [cls, renames] = owner;
    const rules = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).filter((m) => m.propertyName === (renames?.[field] ?? field));
    const constraint = (name: string, i = 0): unknown => rules.find((m) => m.name === name)?.constraints?.[i];
    const expect = (what: string, mcp: unknown, dto: unknown) => {
      if (mcp !== undefined && JSON.stringify(mcp) !== JSON.stringify(dto) && !DELIBERATE.has(`${tool}.${field} ${what}`)) problems.push(`${tool}.${field} ${what}: MCP ${JSON.stringify(mcp)}, ${cls.name} ${JSON.stringify(dto)}`);
    };
    expect('maxLength', schema.maxLength, constraint('isLength', 1) ?? constraint('maxLength'));
    expect('minLength', schema.minLength && schema.minLength > 0 ? schema.minLength : undefined, constraint('isLength', 0) ?? constraint('minLength'));
    expect('maximum', schema.maximum, constraint('max'));
    expect('minimum', schema.minimum, constraint('min'));
    expect('maxItems', schema.maxItems, constraint('arrayMaxSize'));
    expect('enum', schema.enum, constraint('isIn') ?? (constraint('isEnum') ? Object.values(constraint('isEnum') as object) : undefined));
    if (schema.items?.maxLength !== undefined) expect('items.maxLength', schema.items.maxLength, constraint('isLength', 1) ?? constraint('maxLength'));
  }
  return problems;
}

describe('MCP over streamable HTTP at /mcp', () => {
  let t: TestApp;
  let url: URL;
  const clients: Client[] = [];

  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: KEY, SERVICE_REQUIRE_TENANT: 'true' });
    await t.app.listen(0, '127.0.0.1');
    url = new URL(`http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
  });

  it('lists the tools with JSON schemas, descriptions and annotations, and the profile resource template', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['ingest_episode', 'compile_memories', 'get_compile_job', 'get_context', 'search_memories', 'get_timeline', 'delete_subject', 'get_health', 'get_sla', 'create_handoff', 'record_resolution', 'remember', 'get_memory', 'correct_memory', 'forget_memory', 'get_receipt']) {
      const tool = byName.get(name);
      expect(tool).toBeDefined();
      expect(tool!.description!.length).toBeGreaterThan(40);
      expect(tool!.inputSchema.type).toBe('object');
    }
    expect(byName.get('get_context')!.inputSchema.required).toEqual(expect.arrayContaining(['subject_id', 'task']));
    expect(byName.get('delete_subject')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.get('search_memories')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('forget_memory')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.get('get_memory')!.annotations).toMatchObject({ readOnlyHint: true });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toContain('memory://subjects/{subject_id}/profile');
  });

  it('states the same limits as the REST DTOs that check each tool', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(TOOL_DTOS).sort());
    const problems = tools.flatMap((tool) => limitMismatches(tool.name, (tool.inputSchema.properties ?? {}) as Record<string, JsonSchemaProperty>));
    expect(problems).toEqual([]);
  });

  it('ingests, compiles and returns context with provenance; the profile resource lists the facts', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const ingested = await client.callTool({
      name: 'ingest_episode',
      arguments: {
        subject_id: 'mcp/user-1',
        source: 'chat',
        type: 'conversation',
        session_id: 'sess-1',
        payload: { messages: [{ role: 'user', content: 'My name is Juno Marsh and I prefer email over phone calls.' }] },
      },
    });
    expect(ingested.isError).toBeFalsy();
    const episode = structured<{ id: string; subject_id: string }>(ingested);
    expect(episode.subject_id).toBe('mcp/user-1');

    const compiled = await client.callTool({ name: 'compile_memories', arguments: { subject_id: 'mcp/user-1' } });
    expect(compiled.isError).toBeFalsy();
    const { memories_created, memories } = structured<{ memories_created: number; memories: { id: string; kind: string; source_episode_ids: string[] }[] }>(compiled);
    expect(memories_created).toBeGreaterThan(0);
    expect(memories.every((m) => m.source_episode_ids.includes(episode.id))).toBe(true);
    const fact = memories.find((m) => m.kind === 'profile_fact');
    expect(fact).toBeDefined();

    const context = await client.callTool({ name: 'get_context', arguments: { subject_id: 'mcp/user-1', task: 'Write to Juno about the renewal', max_tokens: 500 } });
    expect(context.isError).toBeFalsy();
    expect(text(context)).toContain('## Task');
    expect(text(context)).toContain('Juno Marsh');
    const bundle = structured<{ provenance: Record<string, string[]>; token_estimate: number; assembled_context: string }>(context);
    expect(bundle.provenance.fact_ids).toContain(fact!.id);
    expect(Object.keys(bundle.provenance).sort()).toEqual(['episode_ids', 'fact_ids', 'procedure_ids', 'summary_ids']);
    expect(bundle.token_estimate).toBeLessThanOrEqual(500);
    expect(JSON.parse(text(context, 1)).provenance).toEqual(bundle.provenance);

    const search = await client.callTool({ name: 'search_memories', arguments: { subject_id: 'mcp/user-1', q: 'juno' } });
    expect(structured<{ memories: unknown[] }>(search).memories.length).toBeGreaterThan(0);
    const timeline = await client.callTool({ name: 'get_timeline', arguments: { subject_id: 'mcp/user-1' } });
    expect(structured<{ episodes: { id: string }[] }>(timeline).episodes.map((e) => e.id)).toEqual([episode.id]);

    const profile = await client.readResource({ uri: 'memory://subjects/mcp%2Fuser-1/profile' });
    const body = JSON.parse(String((profile.contents[0] as { text: string }).text));
    expect(body.subject_id).toBe('mcp/user-1');
    expect(body.facts.map((f: { id: string }) => f.id)).toContain(fact!.id);
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain('memory://subjects/mcp%2Fuser-1/profile');
  });

  it('answers the support tools and compiles asynchronously', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const health = await client.callTool({ name: 'get_health', arguments: { subject_id: 'mcp/user-1' } });
    expect(structured(health)).toMatchObject({ subject_id: 'mcp/user-1', state: expect.any(String) });
    const sla = await client.callTool({ name: 'get_sla', arguments: { subject_id: 'mcp/user-1', first_response_threshold_minutes: 10 } });
    expect(structured(sla)).toMatchObject({ subject_id: 'mcp/user-1', total_sessions: 1 });
    const handoff = await client.callTool({ name: 'create_handoff', arguments: { subject_id: 'mcp/user-1', session_id: 'sess-1' } });
    expect(structured<{ handoff_notes: string }>(handoff).handoff_notes).toMatch(/^# Handoff Brief — mcp\/user-1/);
    const resolution = await client.callTool({ name: 'record_resolution', arguments: { subject_id: 'mcp/user-1', session_id: 'sess-1', status: 'resolved' } });
    expect(structured(resolution)).toMatchObject({ status: 'resolved' });

    const job = await client.callTool({ name: 'compile_memories', arguments: { subject_id: 'mcp/user-1', async: true } });
    const { job_id } = structured<{ job_id: string; status: string }>(job);
    const status = await client.callTool({ name: 'get_compile_job', arguments: { job_id } });
    expect(structured(status)).toMatchObject({ job_id, status: 'pending' });
  });

  it('remembers, reads, corrects and forgets one memory, tenant-scoped', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const remembered = await client.callTool({ name: 'remember', arguments: { subject_id: 'mcp/user-2', kind: 'profile_fact', content: 'I am on the Pro plan.' } });
    expect(remembered.isError).toBeFalsy();
    const v1 = structured<{ id: string; origin: string; status: string }>(remembered);
    expect(v1).toMatchObject({ origin: 'api', status: 'active' });
    const corrected = await client.callTool({ name: 'correct_memory', arguments: { memory_id: v1.id, content: 'I am on the Enterprise plan.' } });
    const v2 = structured<{ id: string; content: string }>(corrected);
    expect(v2.content).toBe('I am on the Enterprise plan.');
    expect(structured(await client.callTool({ name: 'get_memory', arguments: { memory_id: v1.id } }))).toMatchObject({ status: 'superseded', content: 'I am on the Pro plan.' });
    const other = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-b' });
    const foreign = await other.callTool({ name: 'forget_memory', arguments: { memory_id: v2.id } });
    expect(structured<{ error: { code: string } }>(foreign).error.code).toBe('not_found');
    const forgotten = await client.callTool({ name: 'forget_memory', arguments: { memory_id: v2.id } });
    expect(structured(forgotten)).toEqual({ id: v2.id, subject_id: 'mcp/user-2', status: 'tombstoned', memories_forgotten: 2 });
    expect(structured(await client.callTool({ name: 'get_memory', arguments: { memory_id: v1.id } }))).toMatchObject({ status: 'tombstoned', content: '' });
    const invalid = await client.callTool({ name: 'correct_memory', arguments: { memory_id: v2.id } });
    expect(structured<{ error: { code: string } }>(invalid).error.code).toBe('validation_error');
  });

  it('returns tool errors with the contract codes', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const missing = await client.callTool({ name: 'get_compile_job', arguments: { job_id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(text(missing)).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });

    const invalid = await client.callTool({ name: 'ingest_episode', arguments: { subject_id: '', source: 'chat', type: 'note', payload: {} } });
    expect(invalid.isError).toBe(true);
    expect(structured<{ error: { code: string } }>(invalid).error.code).toBe('validation_error');

    // The HTTP body rules apply before MCP sees the message (NUL characters are refused everywhere).
    await expect(client.callTool({ name: 'ingest_episode', arguments: { subject_id: 'a\u0000b', source: 'chat', type: 'note', payload: {} } })).rejects.toThrow(/validation_error/);

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(JSON.parse(text(unknown)).error.code).toBe('not_found');
  });

  it('writes a receipt from get_context and reads it back with get_receipt, tenant-scoped', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const context = await client.callTool({
      name: 'get_context',
      arguments: { subject_id: 'mcp/user-1', task: 'Write to Juno', emit_receipt: true, caller_id: 'agent-7', caller_type: 'support_bot', task_id: 'T-1' },
    });
    const bundle = structured<{ receipt_id: string; receipt_emitted: boolean; provenance: { fact_ids: string[] } }>(context);
    expect(bundle.receipt_emitted).toBe(true);
    expect(bundle.receipt_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const receipt = structured<{ receipt_id: string; caller: Record<string, unknown>; task_id: string; selected_entries: { memory_id?: string }[] }>(
      await client.callTool({ name: 'get_receipt', arguments: { receipt_id: bundle.receipt_id } }),
    );
    expect(receipt).toMatchObject({ receipt_id: bundle.receipt_id, task_id: 'T-1' });
    expect(JSON.stringify(receipt)).toContain('agent-7');
    const ids = receipt.selected_entries.map((e) => e.memory_id).filter(Boolean);
    for (const id of bundle.provenance.fact_ids) expect(ids).toContain(id);
    const other = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-b' });
    const foreign = await other.callTool({ name: 'get_receipt', arguments: { receipt_id: bundle.receipt_id } });
    expect(structured<{ error: { code: string } }>(foreign).error.code).toBe('not_found');
    const handoff = structured<{ receipt_id: string; receipt_emitted: boolean }>(
      await client.callTool({ name: 'create_handoff', arguments: { subject_id: 'mcp/user-1', session_id: 'sess-1', emit_receipt: true } }),
    );
    expect(handoff.receipt_emitted).toBe(true);
    expect(structured<{ receipt_id: string }>(await client.callTool({ name: 'get_receipt', arguments: { receipt_id: handoff.receipt_id } })).receipt_id).toBe(handoff.receipt_id);
  });

  it("applies the tenant's policy bundle to every MCP read of memories", async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-p' });
    const subject = 'mcp/patient';
    const plain = structured<{ id: string }>(await client.callTool({ name: 'remember', arguments: { subject_id: subject, kind: 'profile_fact', content: 'I live in Bergen.' } }));
    const medical = structured<{ id: string }>(await client.callTool({ name: 'remember', arguments: { subject_id: subject, kind: 'profile_fact', content: 'I am allergic to penicillin.' } }));
    const auth = { 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-p' };
    const patch = await fetch(new URL(`/v1/memories/${medical.id}/labels`, url), { method: 'PATCH', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ sensitivity_labels: ['health'] }) });
    expect(patch.status).toBe(200);
    const policy = 'version: 1\nmode: enforce\nrules:\n  - id: medical\n    deny_labels: [health]\n    unless_caller_types: [clinician]\n';
    expect((await fetch(new URL('/admin/policy?tenant_id=tenant-p', url), { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ yaml: policy }) })).status).toBe(200);

    const ids = (result: unknown, key = 'memories') => (structured<Record<string, { id: string }[]>>(result)[key] ?? []).map((m) => m.id);
    for (const [caller, sees] of [[{}, false], [{ caller_type: 'support_bot' }, false], [{ caller_type: 'clinician', caller_id: 'dr-1' }, true]] as const) {
      const search = await client.callTool({ name: 'search_memories', arguments: { subject_id: subject, ...caller } });
      expect(ids(search)).toContain(plain.id);
      expect(ids(search).includes(medical.id)).toBe(sees);
      const timeline = await client.callTool({ name: 'get_timeline', arguments: { subject_id: subject, ...caller } });
      expect(ids(timeline)).toContain(plain.id);
      expect(ids(timeline).includes(medical.id)).toBe(sees);
      const one = await client.callTool({ name: 'get_memory', arguments: { memory_id: medical.id, ...caller } });
      if (sees) expect(structured<{ id: string }>(one).id).toBe(medical.id);
      else expect(structured<{ error: { code: string } }>(one).error.code).toBe('not_found');
      const context = await client.callTool({ name: 'get_context', arguments: { subject_id: subject, task: 'Prescribe something for the patient', ...caller } });
      expect(text(context).includes('penicillin')).toBe(sees);
    }
    // A resource read names no caller, so the labelled fact stays out of it.
    const profile = await client.readResource({ uri: `memory://subjects/${encodeURIComponent(subject)}/profile` });
    const facts = JSON.parse((profile.contents[0] as { text: string }).text).facts.map((f: { id: string }) => f.id);
    expect(facts).toEqual([plain.id]);
  });

  it('reads as of an earlier instant through get_context, search_memories and get_timeline', async () => {
    const client = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    const subject = 'mcp/as-of';
    const first = structured<{ id: string }>(await client.callTool({ name: 'remember', arguments: { subject_id: subject, kind: 'profile_fact', content: 'I am on the Team plan.' } }));
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await client.callTool({ name: 'remember', arguments: { subject_id: subject, kind: 'profile_fact', content: 'I am on the Enterprise plan.' } });
    const now = structured<{ memories: { content: string }[] }>(await client.callTool({ name: 'search_memories', arguments: { subject_id: subject } }));
    expect(now.memories.map((m) => m.content)).toEqual(['I am on the Enterprise plan.']);
    const then = structured<{ memories: { id: string; content: string }[] }>(await client.callTool({ name: 'search_memories', arguments: { subject_id: subject, as_of: before } }));
    expect(then.memories.map((m) => m.id)).toEqual([first.id]);
    const context = await client.callTool({ name: 'get_context', arguments: { subject_id: subject, task: 'Which plan is the customer on?', as_of: before } });
    expect(text(context)).toContain('Team plan');
    expect(text(context)).not.toContain('Enterprise plan');
    const timeline = structured<{ memories: { id: string; status: string }[] }>(await client.callTool({ name: 'get_timeline', arguments: { subject_id: subject, as_of: before } }));
    expect(timeline.memories.map((m) => [m.id, m.status])).toEqual([[first.id, 'active']]);
    const future = await client.callTool({ name: 'search_memories', arguments: { subject_id: subject, as_of: '2999-01-01T00:00:00Z' } });
    expect(structured<{ error: { code: string } }>(future).error.code).toBe('validation_error');
  });

  it('keeps tenants apart', async () => {
    const other = await connect({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-b' });
    const context = await other.callTool({ name: 'get_context', arguments: { subject_id: 'mcp/user-1', task: 'Write to Juno' } });
    expect(structured<{ provenance: { fact_ids: string[]; episode_ids: string[] } }>(context).provenance).toMatchObject({ fact_ids: [], episode_ids: [] });
    const timeline = await other.callTool({ name: 'get_timeline', arguments: { subject_id: 'mcp/user-1' } });
    expect(structured(timeline)).toMatchObject({ episodes: [], memories: [] });
  });

  it('enforces the API key and the tenant header like REST', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const json = async (res: Response): Promise<any> => res.json();
    const noKey = await post({});
    expect(noKey.status).toBe(401);
    expect((await json(noKey)).error.code).toBe('missing_api_key');
    const badKey = await post({ 'X-API-Key': 'wrong' });
    expect(badKey.status).toBe(403);
    expect((await json(badKey)).error.code).toBe('invalid_api_key');
    const noTenant = await post({ 'X-API-Key': KEY });
    expect(noTenant.status).toBe(400);
    expect((await json(noTenant)).error.code).toBe('missing_tenant');
    const ok = await post({ 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a' });
    expect(ok.status).toBe(200);
    expect((await json(ok)).result.serverInfo.name).toBe('memory-service');

    await expect(connect({ 'X-API-Key': 'wrong', 'X-Tenant-ID': 'tenant-a' })).rejects.toThrow();
    const stream = await fetch(url, { headers: { 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a', Accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
  });

  it('refuses a JSON-RPC batch (removed in MCP 2025-06-18) without running any of its calls', async () => {
    const calls = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'ingest_episode', arguments: { subject_id: 'mcp/batch', source: 'user', type: 'note', payload: { text: `call ${i}` } } },
    }));
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-API-Key': KEY, 'X-Tenant-ID': 'tenant-a', 'MCP-Protocol-Version': '2025-06-18' },
      body: JSON.stringify(calls),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batch/i) } });
    const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM episodes WHERE subject_id = 'mcp/batch'`);
    expect(n).toBe(0);
  });
});
