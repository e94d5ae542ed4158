import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import type { OpenAPIObject, OperationObject, ParameterObject, SchemaObject } from '@nestjs/swagger';
import request from 'supertest';
import { surfaceOf } from 'src/common/auth/principal';
import { createTestApp, TestApp } from '../app-factory';
import { SupportService } from 'src/modules/support/support.service';

const MASTER = 'tenant-sweep-master';
const A = 'tenant-a';
const B = 'tenant-b';
const SECRET_TEXT = 'Juno keeps her savings in the blue teapot';

/** Every route the router serves, as `METHOD /openapi/{style}` (the route-auth walk). */
function routerRoutes(t: TestApp): { method: string; path: string }[] {
  const out = new Map<string, { method: string; path: string }>();
  for (const wrapper of t.app.get(DiscoveryService).getControllers()) {
    const cls = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
    if (!cls) continue;
    const bases = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, cls) ?? '');
    for (const name of Object.getOwnPropertyNames(cls.prototype)) {
      const handler = cls.prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const m = Reflect.getMetadata(METHOD_METADATA, handler);
      if (m === undefined) continue;
      for (const b of bases) {
        for (const p of ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, handler) ?? '')) {
          const path = ('/' + [b, p].filter(Boolean).join('/')).replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');
          const method = RequestMethod[m];
          out.set(`${method} ${path}`, { method, path });
        }
      }
    }
  }
  return [...out.values()].sort((x, y) => `${x.path} ${x.method}`.localeCompare(`${y.path} ${y.method}`));
}

/**
 * Two client keys bound to tenants A and B. B's key is sent to every route the router serves and
 * every MCP tool, naming A's identifiers (subject, memory, job, receipt, webhook event, session)
 * and, separately, identifiers that never existed. New routes and tools are covered as they are
 * added: the walk reads the router, the OpenAPI document (request examples) and tools/list.
 * B must get the same answer about A's things as about nothing (status, and body once ids and
 * times are normalised), A's rows must be unchanged, B's webhook events must name only B, and
 * naming A in the tenant header must be refused.
 */
describe('tenant sweep: a key bound to tenant B learns and changes nothing of tenant A', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  let doc: OpenAPIObject;
  const SUBJECT = 'shared/juno';
  const ids: Record<string, string> = {};
  const never: Record<string, string> = {};

  const asA = (r: request.Test) => r.set('Authorization', `Bearer ${keyA}`);

  /** A's data, row by row, in every table that has a tenant column. */
  async function fingerprintA(): Promise<Record<string, string>> {
    const tables: { table_name: string }[] = await t.ds.query(
      `SELECT table_name FROM information_schema.columns WHERE column_name = 'tenant_id' AND table_schema = current_schema() ORDER BY table_name`,
    );
    const out: Record<string, string> = {};
    for (const { table_name } of tables) {
      const [row] = await t.ds.query(`SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM ${table_name} x WHERE tenant_id = $1`, [A]);
      out[table_name] = `${row.n}:${row.h}`;
    }
    return out;
  }

  beforeAll(async () => {
    t = await createTestApp({ SERVICE_API_KEY: MASTER, SERVICE_REQUIRE_TENANT: 'true', SERVICE_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    const mk = async (tenant: string) => (await request(t.http).post('/admin/api-keys').set('X-API-Key', MASTER).send({ role: 'client', tenant_id: tenant }).expect(201)).body.key as string;
    keyA = await mk(A);
    keyB = await mk(B);
    const episode = await asA(request(t.http).post('/v1/episodes'))
      .send({ subject_id: SUBJECT, source: 'user', type: 'conversation', session_id: 's1', payload: { messages: [{ role: 'user', content: `My name is Juno. ${SECRET_TEXT}.` }] } })
      .expect(201);
    ids.episode = episode.body.id;
    await asA(request(t.http).post('/v1/memories/compile')).send({ subject_id: SUBJECT }).expect(200);
    const memory = await asA(request(t.http).post('/v1/memories')).send({ subject_id: SUBJECT, kind: 'profile_fact', content: SECRET_TEXT }).expect(201);
    ids.memory = memory.body.id;
    await asA(request(t.http).post('/v1/resolutions')).send({ subject_id: SUBJECT, session_id: 's1', status: 'open' }).expect(200);
    const context = await asA(request(t.http).post('/v1/context')).send({ subject_id: SUBJECT, task: 'where are the savings', emit_receipt: true }).expect(200);
    ids.receipt = context.body.receipt_id;
    ids.job = (await asA(request(t.http).post('/v1/memories/compile')).send({ subject_id: SUBJECT, async: true }).expect(202)).body.job_id;
    ids.event = (await t.ds.query(`SELECT id::text FROM webhook_events WHERE tenant_id = $1 LIMIT 1`, [A]))[0].id;
    // A's own writes scheduled a health recomputation: let it run now, not during the sweep,
    // where it would change A's health_cache row and look like B's doing.
    await t.app.get(SupportService).drainHealthRefresh();
    for (const k of ['episode', 'memory', 'receipt', 'job', 'event']) {
      expect(ids[k]).toEqual(expect.any(String));
      never[k] = randomUUID();
    }
    // The checked-in document (CI fails when it drifts from the app): it carries the request
    // examples and parameters that the Swagger CLI plugin adds at build time, which ts-jest lacks.
    doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8'));
  });
  afterAll(() => t.close());

  const NEVER_SUBJECT = 'never/existed';
  /** Values for path, query and body fields by name: A's, or ones that never existed. */
  const valueFor = (name: string, ofA: boolean): string | undefined => {
    const v = ofA ? ids : never;
    switch (name) {
      case 'subject_id':
      case 'target_subject_id':
        return ofA ? SUBJECT : NEVER_SUBJECT;
      case 'id':
      case 'memory_id':
        return v.memory;
      case 'job_id':
        return v.job;
      case 'receipt_id':
      case 'parent_receipt_id':
        return v.receipt;
      case 'event_id':
        return v.event;
      case 'episode_id':
        return v.episode;
      case 'snapshot_id':
        return ofA ? ids.episode : never.episode;
      case 'session_id':
        return 's1';
      case 'q':
      case 'query':
      case 'task':
        return 'savings teapot';
      default:
        return undefined;
    }
  };

  /** Replaces every field named like an identifier, at any depth, with A's or the never-existing value. */
  function substitute(value: unknown, ofA: boolean): unknown {
    if (Array.isArray(value)) return value.map((v) => substitute(v, ofA));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const replacement = typeof v === 'string' ? valueFor(k, ofA) : undefined;
      out[k] = replacement ?? substitute(v, ofA);
    }
    return out;
  }

  /** Ids, times and signatures differ between any two calls; A's and the never-existing names are aligned. */
  function normalise(body: unknown): string {
    let text = JSON.stringify(body ?? null);
    for (const [k, v] of Object.entries(ids)) text = text.split(v).join(`<${k}>`);
    for (const [k, v] of Object.entries(never)) text = text.split(v).join(`<${k}>`);
    return text
      .split(SUBJECT)
      .join('<subject>')
      .split(NEVER_SUBJECT)
      .join('<subject>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/g, '<time>')
      .replace(/[A-Za-z0-9+/_=-]{40,}/g, '<blob>')
      .replace(/"(took_ms|duration_ms|elapsed_ms)":\d+/g, '"$1":0');
  }

  /** What each built request sent (path, query and body), for telling an echo from a leak. */
  const sent = new WeakMap<request.Test, string>();

  function build(method: string, path: string, ofA: boolean, key: string, tenantHeader?: string): request.Test {
    const op = (doc.paths[path] as Record<string, OperationObject> | undefined)?.[method.toLowerCase()];
    const query: Record<string, string> = {};
    let url = path;
    for (const p of (op?.parameters ?? []) as ParameterObject[]) {
      if (!('name' in p)) continue;
      const schema = (p.schema ?? {}) as SchemaObject;
      const value = valueFor(p.name, ofA) ?? (p.required ? String(schema.example ?? schema.default ?? schema.minimum ?? 'x') : undefined);
      if (value === undefined) continue;
      if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value));
      else if (p.in === 'query') query[p.name] = value;
    }
    url = url.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(valueFor(name, ofA) ?? 'x'));
    const body = (op?.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)?.content?.['application/json']?.example;
    const agent = request(t.http) as unknown as Record<string, (u: string) => request.Test>;
    const r = agent[method.toLowerCase()](url).query(query).set('X-API-Key', key).set('Accept', 'application/json, text/event-stream');
    if (tenantHeader) r.set('X-Tenant-ID', tenantHeader);
    const payload = body === undefined ? undefined : substitute(body, ofA);
    sent.set(r, `${url} ${JSON.stringify(query)} ${JSON.stringify(payload ?? null)}`);
    return payload === undefined ? r : r.send(payload as object);
  }

  /** A's content, or an id of A's that the caller did not send itself (echoing B's own input back tells B nothing). */
  const leaks = (body: unknown, sent = ''): boolean => {
    const text = JSON.stringify(body ?? null);
    return [SECRET_TEXT, 'Juno', ...Object.values(ids).filter((id) => !sent.includes(id))].some((s) => text.includes(s));
  };


  it('walks every route of the router with B\'s key: operator routes 403, client routes answer about A as about nothing', async () => {
    const before = await fingerprintA();
    const routes = routerRoutes(t).filter((r) => surfaceOf(r.path.replace(/\{\w+\}/g, 'x')) !== 'public');
    expect(routes.length).toBeGreaterThan(30);
    const problems: string[] = [];
    // Reads first, so B's own writes under A's subject name (allowed: they land in B) cannot make
    // a later read differ between A's subject and the one that never existed.
    const ordered = [...routes.filter((r) => r.method === 'GET'), ...routes.filter((r) => r.method !== 'GET')];
    for (const { method, path } of ordered) {
      const label = `${method} ${path}`;
      const req = build(method, path, true, keyB);
      const onA = await req;
      if (leaks(onA.body, sent.get(req))) problems.push(`${label}: answer names A's data`);
      if (surfaceOf(path) === 'operator') {
        if (onA.status !== 403) problems.push(`${label}: operator route answered ${onA.status}, not 403`);
        continue;
      }
      const onNothing = await build(method, path, false, keyB);
      if (onA.status !== onNothing.status) problems.push(`${label}: ${onA.status} about A, ${onNothing.status} about nothing`);
      else if (method === 'GET' && path !== '/mcp' && normalise(onA.body) !== normalise(onNothing.body)) problems.push(`${label}: answers differ\n  A: ${normalise(onA.body)}\n  -: ${normalise(onNothing.body)}`);
      const asTenantA = await build(method, path, true, keyB, A);
      if (asTenantA.status !== 403) problems.push(`${label}: A's tenant header answered ${asTenantA.status}, not 403`);
    }
    expect(problems).toEqual([]);
    expect(await fingerprintA()).toEqual(before);
  });

  it('calls every MCP tool with B\'s key about A\'s identifiers: the same answer as about nothing, A unchanged', async () => {
    const before = await fingerprintA();
    let rpcId = 0;
    const rpc = (key: string, method: string, params: unknown, tenantHeader?: string) => {
      const r = request(t.http).post('/mcp').set('Authorization', `Bearer ${key}`).set('Accept', 'application/json, text/event-stream');
      if (tenantHeader) r.set('X-Tenant-ID', tenantHeader);
      return r.send({ jsonrpc: '2.0', id: ++rpcId, method, params });
    };
    const listed = await rpc(keyB, 'tools/list', {}).expect(200);
    const tools = listed.body.result.tools as { name: string; inputSchema: { properties?: Record<string, SchemaObject>; required?: string[] } }[];
    expect(tools.length).toBeGreaterThan(10);
    const argsFor = (tool: (typeof tools)[number], ofA: boolean): Record<string, unknown> => {
      const args: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        const v = valueFor(name, ofA);
        if (v !== undefined) args[name] = v;
        else if (tool.inputSchema.required?.includes(name)) {
          args[name] = schema.type === 'object' ? { messages: [{ role: 'user', content: 'hello from b' }] } : schema.type === 'array' ? [] : schema.enum?.[0] ?? (schema.type === 'string' ? 'note' : 1);
        }
      }
      return args;
    };
    const problems: string[] = [];
    const readFirst = [...tools].sort((x, y) => Number(/ingest|compile|remember|correct|forget|delete|record/.test(x.name)) - Number(/ingest|compile|remember|correct|forget|delete|record/.test(y.name)));
    for (const tool of readFirst) {
      const onA = await rpc(keyB, 'tools/call', { name: tool.name, arguments: argsFor(tool, true) });
      const onNothing = await rpc(keyB, 'tools/call', { name: tool.name, arguments: argsFor(tool, false) });
      if (leaks(onA.body, JSON.stringify(argsFor(tool, true)))) problems.push(`${tool.name}: answer names A's data`);
      if (normalise(onA.body.result?.isError ?? null) !== normalise(onNothing.body.result?.isError ?? null)) problems.push(`${tool.name}: error about A differs from about nothing`);
      const errorCode = (res: request.Response) => res.body.result?.structuredContent?.error?.code ?? null;
      if (errorCode(onA) !== errorCode(onNothing)) problems.push(`${tool.name}: ${errorCode(onA)} about A, ${errorCode(onNothing)} about nothing`);
      const asTenantA = await rpc(keyB, 'tools/call', { name: tool.name, arguments: argsFor(tool, true) }, A);
      if (asTenantA.status !== 403) problems.push(`${tool.name}: A's tenant header answered ${asTenantA.status}, not 403`);
    }
    expect(problems).toEqual([]);
    expect(await fingerprintA()).toEqual(before);
    // A's own key still reads its data through the same tools: the sweep did not blind everybody.
    const own = await rpc(keyA, 'tools/call', { name: 'get_timeline', arguments: { subject_id: SUBJECT } });
    expect(JSON.stringify(own.body)).toContain(SECRET_TEXT);
  });

  it('writes B\'s webhook events under B only, naming nothing of A', async () => {
    const events: { tenant_id: string | null; payload: unknown }[] = await t.ds.query(`SELECT tenant_id, payload FROM webhook_events WHERE tenant_id IS DISTINCT FROM $1`, [A]);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.tenant_id).toBe(B);
      expect(JSON.stringify(e.payload)).toContain(`"tenant_id":"${B}"`);
      expect(leaks(e.payload)).toBe(false);
    }
  });
});
