import fc from 'fast-check';

/**
 * Generators of hostile HTTP requests for every route of the service (the list comes from the
 * controllers; see ROUTES). A request starts from a valid one and is then bent: a field gets a
 * hostile value, goes missing or changes type; the body is replaced by raw text (malformed,
 * duplicate keys, deep nesting, invalid UTF-8) or sent with an odd content type; the query
 * string gets hostile, duplicate or bracketed parameters; path parameters get traversal tricks;
 * headers get hostile request ids, tenants and keys.
 */

export interface HostileRequest {
  method: 'get' | 'post' | 'delete';
  /** Path with its query string, already encoded as it goes on the wire. */
  url: string;
  headers: Record<string, string>;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; bytes: Buffer; contentType: string | null };
  /** What was done to it (for the failure report). */
  label: string;
}

export interface HostileContext {
  apiKey: string;
  tenantHeader: string;
  tenant: string;
  /** Subject ids, job ids, event ids and snapshot ids that exist, so some requests hit real rows. */
  subjects: string[];
  jobIds: string[];
  eventIds: string[];
  snapshotIds: string[];
  snapshotNames: string[];
  /** Never generated verbatim as a subject id (the sentinel must not change). */
  protectedSubject: string;
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '0x10',
  '9007199254740993',
  '99999999999999999999999999',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\uffff',
  '\u202eevil',
  '😀🏳️‍🌈',
  '\r\nX-Injected: 1',
  '\u001b[31mred\u001b[0m',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f',
  '%00',
  '%',
  '%zz',
  '_',
  '\\',
  "'; DROP TABLE episodes; --",
  "' OR '1'='1",
  '" OR 1=1 --',
  '$1',
  '{"$gt": ""}',
  '{"__proto__": {"polluted": true}}',
  '__proto__',
  'constructor',
  'prototype',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '_snapshot/x/v1',
  '_snapshot/',
  'live_',
  'a'.repeat(129),
  'a'.repeat(257),
  'b'.repeat(2001),
  'c'.repeat(4001),
  'd'.repeat(20_000),
];

const HOSTILE_NUMBERS = [0, -1, 1, -0, 0.5, 1e-7, 5e-324, 2 ** 31, 2 ** 31 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308, 128001, 16001, 101, 201, 100, 1.5];

function pathTricks(protectedSubject: string): string[] {
  const p = encodeURIComponent(protectedSubject);
  return [
    `${p}%2F..`,
    `..%2F${p}`,
    `${p}%2F..%2F..`,
    `${p}%00`,
    `${p}%20`,
    `${p.toUpperCase()}`,
    `%2e%2e%2f${p}`,
    `${p}%2F`,
    `${p}%2F.`,
    `.%2F${p}`,
    `${p}%23frag`,
    `${p}%3Fq%3D1`,
    '%2e%2e',
    '..',
    '.',
    '%00',
    '%',
    '%zz',
    '%C0%AE%C0%AE%2F',
    '%ED%A0%80',
    'a%2F%2Fb',
    encodeURIComponent('x'.repeat(300)),
    "'%3B%20DROP%20TABLE%20memories%3B%20--",
  ];
}

/** Any JSON-ish value, biased towards the hostile ones. */
export function hostileValue(): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(...HOSTILE_NUMBERS) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((b) => Number(b)) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(true, false, null) },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  );
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), leaf, { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 400 }).map((n) => Array.from({ length: n }, (_, i) => i)) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 100 }).map((d) => nest(d)) },
  );
}

/**
 * encodeURIComponent that also sends lone surrogates (as their WTF-8 bytes, %ED%A0%80 …), which
 * the standard function refuses: the service must cope with such bytes in paths and queries.
 */
export function enc(s: string): string {
  let out = '';
  for (const ch of s) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      const cu = ch.charCodeAt(0);
      out += [0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    }
  }
  return out;
}

/** Text of any generated value (some objects have no prototype, so no String()). */
const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

function nest(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

interface RouteSpec {
  name: string;
  method: HostileRequest['method'];
  /** Path with `{param}` placeholders. */
  path: string;
  params?: Record<string, (c: HostileContext) => fc.Arbitrary<string>>;
  query?: (c: HostileContext) => fc.Arbitrary<Record<string, string>>;
  body?: (c: HostileContext) => fc.Arbitrary<Record<string, unknown>>;
}

const subjectArb = (c: HostileContext) =>
  fc.oneof(fc.constantFrom(...c.subjects), fc.constantFrom('fuzz-a', 'fuzz/b', 'fuzz c', 'live_fuzz'), fc.string({ minLength: 1, maxLength: 30 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 30 })).filter((s) => s !== c.protectedSubject);
const uuidArb = () => fc.uuid();
const episodeArb = (c: HostileContext) =>
  fc.record(
    {
      subject_id: subjectArb(c),
      source: fc.constantFrom('user', 'agent', 'support-chat', 'tool'),
      type: fc.constantFrom('conversation', 'note', 'event'),
      payload: fc.oneof(
        fc.constant({ messages: [{ role: 'user', content: 'My name is Fuzz and I prefer email.' }, { role: 'assistant', content: 'Noted.' }] }),
        fc.record({ messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string({ maxLength: 60 }) }), { maxLength: 4 }) }),
        fc.record({ text: fc.string({ maxLength: 80 }) }),
      ),
      metadata: fc.constant({ fuzz: true }),
      session_id: fc.constantFrom('s-1', 's-2'),
      idempotency_key: fc.uuid(),
    },
    { requiredKeys: ['subject_id', 'source', 'type', 'payload'] },
  );

export function routes(): RouteSpec[] {
  return [
    { name: 'healthz', method: 'get', path: '/healthz' },
    { name: 'readyz', method: 'get', path: '/readyz' },
    { name: 'ops-migrations', method: 'get', path: '/ops/migrations' },
    { name: 'episode', method: 'post', path: '/v1/episodes', body: (c) => episodeArb(c) },
    { name: 'episode-batch', method: 'post', path: '/v1/episodes/batch', body: (c) => fc.record({ episodes: fc.array(episodeArb(c), { minLength: 1, maxLength: 4 }) }) },
    { name: 'compile', method: 'post', path: '/v1/memories/compile', body: (c) => fc.record({ subject_id: subjectArb(c), async: fc.boolean() }, { requiredKeys: ['subject_id'] }) },
    { name: 'compile-status', method: 'get', path: '/v1/memories/compile/{job_id}', params: { job_id: (c) => fc.oneof(fc.constantFrom(...c.jobIds), uuidArb()) } },
    {
      name: 'search',
      method: 'get',
      path: '/v1/memories/search',
      query: (c) =>
        fc.record(
          { subject_id: subjectArb(c), kind: fc.constantFrom('profile_fact', 'procedure', 'episode_summary'), q: fc.string({ maxLength: 20 }), semantic: fc.constantFrom('true', 'false'), limit: fc.integer({ min: 1, max: 100 }).map(String) },
          { requiredKeys: ['subject_id'] },
        ),
    },
    {
      name: 'context',
      method: 'post',
      path: '/v1/context',
      body: (c) => fc.record({ subject_id: subjectArb(c), task: fc.string({ minLength: 1, maxLength: 60 }), max_tokens: fc.integer({ min: 1, max: 8000 }), session_id: fc.constant('s-1') }, { requiredKeys: ['subject_id', 'task'] }),
    },
    { name: 'subjects', method: 'get', path: '/v1/subjects', query: () => fc.record({ limit: fc.integer({ min: 1, max: 200 }).map(String), offset: fc.nat(50).map(String) }, { requiredKeys: [] }) },
    { name: 'subject-delete', method: 'delete', path: '/v1/subjects/{subject_id}', params: { subject_id: (c) => subjectArb(c).map(enc) } },
    { name: 'timeline', method: 'get', path: '/v1/timeline', query: (c) => fc.record({ subject_id: subjectArb(c), limit: fc.integer({ min: 1, max: 1000 }).map(String) }, { requiredKeys: ['subject_id'] }) },
    {
      name: 'resolution-upsert',
      method: 'post',
      path: '/v1/resolutions',
      body: (c) =>
        fc.record(
          { subject_id: subjectArb(c), session_id: fc.constantFrom('s-1', 's-2', 's-3'), status: fc.constantFrom('open', 'resolved', 'unresolved'), resolution_summary: fc.string({ maxLength: 40 }), metadata: fc.constant({ k: 1 }) },
          { requiredKeys: ['subject_id', 'session_id'] },
        ),
    },
    { name: 'resolution-list', method: 'get', path: '/v1/resolutions', query: (c) => fc.record({ subject_id: subjectArb(c), status: fc.constantFrom('open', 'resolved', 'unresolved') }, { requiredKeys: ['subject_id'] }) },
    { name: 'health', method: 'get', path: '/v1/subjects/{subject_id}/health', params: { subject_id: (c) => subjectArb(c).map(enc) } },
    {
      name: 'sla',
      method: 'get',
      path: '/v1/subjects/{subject_id}/sla',
      params: { subject_id: (c) => subjectArb(c).map(enc) },
      query: () => fc.record({ first_response_threshold_minutes: fc.double({ min: 0, max: 1e6, noNaN: true }).map(String), resolution_threshold_hours: fc.double({ min: 0, max: 1e6, noNaN: true }).map(String) }, { requiredKeys: [] }),
    },
    {
      name: 'handoff',
      method: 'post',
      path: '/v1/handoff',
      body: (c) => fc.record({ subject_id: subjectArb(c), session_id: fc.constantFrom('s-1', 's-2'), reason: fc.string({ maxLength: 30 }), max_tokens: fc.integer({ min: 1, max: 16000 }) }, { requiredKeys: ['subject_id', 'session_id'] }),
    },
    {
      name: 'admin-jobs',
      method: 'get',
      path: '/admin/jobs',
      query: (c) => fc.record({ status: fc.constantFrom('pending', 'running', 'completed', 'failed'), subject_id: subjectArb(c), tenant_id: fc.constantFrom(c.tenant, 'other'), limit: fc.integer({ min: 1, max: 100 }).map(String), offset: fc.nat(20).map(String) }, { requiredKeys: [] }),
    },
    { name: 'tenant-audit', method: 'get', path: '/admin/tenant-audit' },
    { name: 'export', method: 'get', path: '/admin/export/{subject_id}', params: { subject_id: (c) => subjectArb(c).map(enc) }, query: (c) => fc.record({ tenant_id: fc.constantFrom(c.tenant, 'other') }, { requiredKeys: [] }) },
    {
      name: 'import',
      method: 'post',
      path: '/admin/import',
      body: (c) =>
        fc.record(
          {
            document: fc.record({ format_version: fc.constantFrom('1.0', '2.0', 1), subject_id: subjectArb(c), episodes: fc.constant([]), memories: fc.constant([]), checksum: fc.stringMatching(/^[0-9a-f]{64}$/) }, { requiredKeys: [] }),
            target_subject_id: fc.constantFrom('fuzz-import', 'fuzz/import'),
            target_tenant_id: fc.constantFrom(c.tenant, 'fuzz-import-tenant'),
            preserve_ids: fc.boolean(),
          },
          { requiredKeys: ['document'] },
        ),
    },
    { name: 'webhook-stats', method: 'get', path: '/admin/webhooks/stats', query: (c) => fc.record({ tenant_id: fc.constantFrom(c.tenant, 'other') }, { requiredKeys: [] }) },
    { name: 'webhook-event', method: 'get', path: '/admin/webhooks/{event_id}', params: { event_id: (c) => fc.oneof(fc.constantFrom(...c.eventIds), uuidArb()) } },
    { name: 'webhook-requeue', method: 'post', path: '/admin/webhooks/dead-letters/requeue', body: (c) => fc.record({ event_ids: fc.array(fc.oneof(fc.constantFrom(...c.eventIds), uuidArb()), { maxLength: 3 }), tenant_id: fc.constant(c.tenant) }, { requiredKeys: [] }) },
    { name: 'snapshots', method: 'get', path: '/admin/snapshots', query: (c) => fc.record({ tenant_id: fc.constantFrom(c.tenant, 'other') }, { requiredKeys: [] }) },
    { name: 'snapshot-restore', method: 'post', path: '/admin/snapshots/{snapshot_id}/restore', params: { snapshot_id: (c) => fc.oneof(fc.constantFrom(...c.snapshotIds), uuidArb()) }, body: () => fc.record({ target_subject_id: fc.constantFrom('fuzz-restored', 'fuzz/restored') }) },
    { name: 'snapshot-restore-by-name', method: 'post', path: '/admin/snapshots/restore-by-name', body: (c) => fc.record({ name: fc.oneof(fc.constantFrom(...c.snapshotNames), fc.string({ maxLength: 20 })), target_subject_id: fc.constantFrom('fuzz-restored-by-name') }) },
    // The prefix is kept away from the sentinel's id: deleting it is what cleanup is for.
    { name: 'cleanup', method: 'post', path: '/admin/cleanup', query: () => fc.record({ prefix: fc.constantFrom('live_', 'fuzz-nothing-', 'zz'), max_age_hours: fc.constantFrom('0', '24', '0.5', '1e9') }, { requiredKeys: [] }) },
  ];
}

const CONTENT_TYPES = [null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/vnd.api+json', 'APPLICATION/JSON', 'application/json;;;', 'application/jsonx', 'application/xml', '*/*'];

function rawBodies(valid: unknown): fc.Arbitrary<{ text: string | Buffer; label: string }> {
  const json = JSON.stringify(valid);
  return fc.oneof(
    fc.constant({ text: json.slice(0, Math.max(1, json.length - 3)), label: 'truncated json' }),
    fc.constant({ text: json.replace('{', '{"subject_id": {"nested": 1}, '), label: 'duplicate key, first wins' }),
    fc.constant({ text: json.replace(/}$/, ', "subject_id": [1, 2]}'), label: 'duplicate key, last wins' }),
    fc.constant({ text: json.replace(/}$/, ', "__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"x": 1}}}'), label: '__proto__ key' }),
    fc.constant({ text: `\ufeff${json}`, label: 'BOM' }),
    fc.constant({ text: `${json} trailing`, label: 'trailing garbage' }),
    fc.constant({ text: `${json}${json}`, label: 'two documents' }),
    fc.constant({ text: '{"subject_id": NaN, "x": Infinity, "y": -Infinity}', label: 'NaN literals' }),
    fc.constant({ text: '{"subject_id": 1e999, "max_tokens": -1e999}', label: 'overflowing numbers' }),
    fc.constant({ text: '{"subject_id": "\\u0000", "task": "\\ud800"}', label: 'escaped NUL and lone surrogate' }),
    fc.constant({ text: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), label: 'nesting 5000' }),
    fc.constant({ text: '['.repeat(70) + ']'.repeat(70), label: 'nesting 70' }),
    fc.constant({ text: '', label: 'empty with content-length 0' }),
    fc.constant({ text: ' ', label: 'whitespace' }),
    fc.constant({ text: 'null', label: 'null' }),
    fc.constant({ text: '"string"', label: 'string body' }),
    fc.constant({ text: '123', label: 'number body' }),
    fc.constant({ text: '[]', label: 'array body' }),
    fc.constant({ text: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]), label: 'invalid utf-8' }),
    fc.constant({ text: `{"subject_id":"${'x'.repeat(2_200_000)}"}`, label: 'over the body limit' }),
    fc.string({ unit: 'binary', maxLength: 60 }).map((s) => ({ text: s, label: 'random text' })),
  );
}

function setPath(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  return { ...obj, [key]: value };
}

function encodeQuery(q: Record<string, string>): string {
  return Object.entries(q)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');
}

const QUERY_TRICKS: ((q: Record<string, string>, key: string, v: string) => string)[] = [
  (q, k, v) => encodeQuery({ ...q, [k]: v }),
  (q, k) => `${encodeQuery(q)}&${enc(k)}=${enc(q[k] ?? 'x')}`,
  (q, k, v) => `${encodeQuery(q)}&${enc(k)}[]=${enc(v)}`,
  (q, k, v) => `${encodeQuery(q)}&${enc(k)}[a][b]=${enc(v)}`,
  (q, k) => `${encodeQuery(q)}&${enc(k)}=%`,
  (q, k) => `${encodeQuery(q)}&${enc(k)}=%00`,
  (q, k) => `${encodeQuery(q)}&${enc(k)}=%zz%ED%A0%80`,
  (q) => `${encodeQuery(q)}&__proto__[polluted]=1&constructor[prototype][x]=1`,
  (q) => `${encodeQuery(q)}&${'p'.repeat(10)}=${'v'.repeat(9000)}`,
  (q) => `${encodeQuery(q)}${'&a=1'.repeat(1200)}`,
  (q, k) => `${encodeQuery(Object.fromEntries(Object.entries(q).filter(([x]) => x !== k)))}`,
];

export function hostileRequest(c: HostileContext): fc.Arbitrary<HostileRequest> {
  const specs = routes();
  const tricks = pathTricks(c.protectedSubject);
  return fc.constantFrom(...specs).chain((spec) => {
    const paramNames = Object.keys(spec.params ?? {});
    const params = fc.record(Object.fromEntries(paramNames.map((n) => [n, fc.oneof({ weight: 3, arbitrary: spec.params![n](c) }, { weight: 2, arbitrary: fc.constantFrom(...tricks) }, { weight: 1, arbitrary: hostileValue().map((v) => enc(text(v))) })])));
    const query = spec.query ? spec.query(c) : fc.constant({} as Record<string, string>);
    const body = spec.body ? spec.body(c) : fc.constant(null);
    const mutation = fc.record({
      bodyMode: fc.constantFrom('valid', 'field', 'field', 'field', 'drop', 'extra', 'whole', 'raw', 'raw', 'content-type'),
      queryMode: fc.constantFrom('valid', 'trick', 'trick'),
      headerMode: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'request-id', 'tenant', 'tenant-missing', 'key-wrong', 'key-missing', 'key-query', 'accept'),
      value: hostileValue(),
      raw: rawBodies({ subject_id: 'fuzz-a', source: 'user', type: 'note', payload: { text: 'x' } }),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      pick: fc.nat(),
      trick: fc.nat(QUERY_TRICKS.length - 1),
      headerValue: fc.oneof(fc.constantFrom('x'.repeat(300), '', ' ', '../../', "'; --", 'é', '\t', 'a b', '<b>', '%0d%0a'), fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, ''))),
    });
    return fc.tuple(params, query, body, mutation).map(([p, q, b, m]): HostileRequest => {
      let path = spec.path;
      for (const [k, v] of Object.entries(p)) path = path.replace(`{${k}}`, v);
      const labels = [`${spec.method.toUpperCase()} ${spec.name}`];
      let qs = encodeQuery(q);
      const keys = Object.keys(q);
      if (m.queryMode === 'trick' && (keys.length > 0 || spec.query)) {
        const key = keys.length ? keys[m.pick % keys.length] : 'subject_id';
        qs = QUERY_TRICKS[m.trick](q, key, text(m.value));
        labels.push(`query trick ${m.trick} on ${key}`);
      }
      const headers: Record<string, string> = { 'X-API-Key': c.apiKey, [c.tenantHeader]: c.tenant };
      switch (m.headerMode) {
        case 'request-id':
          headers['X-Request-ID'] = m.headerValue;
          break;
        case 'tenant':
          headers[c.tenantHeader] = m.headerValue;
          break;
        case 'tenant-missing':
          delete headers[c.tenantHeader];
          break;
        case 'key-wrong':
          headers['X-API-Key'] = m.headerValue || 'wrong';
          break;
        case 'key-missing':
          delete headers['X-API-Key'];
          break;
        case 'key-query':
          delete headers['X-API-Key'];
          qs = `${qs}${qs ? '&' : ''}api_key=${enc(c.apiKey)}&api_key=x`;
          break;
        case 'accept':
          headers.Accept = m.headerValue || 'text/html';
          break;
      }
      if (m.headerMode !== 'valid') labels.push(`header ${m.headerMode}=${JSON.stringify(m.headerValue).slice(0, 40)}`);
      let reqBody: HostileRequest['body'] = { kind: 'none' };
      if (b !== null || spec.method === 'post') {
        const valid = (b ?? {}) as Record<string, unknown>;
        const fields = Object.keys(valid);
        const field = fields.length ? fields[m.pick % fields.length] : 'subject_id';
        switch (m.bodyMode) {
          case 'valid':
            reqBody = { kind: 'json', value: valid };
            break;
          case 'field':
            reqBody = { kind: 'json', value: setPath(valid, field, m.value) };
            labels.push(`body.${field}=${JSON.stringify(m.value)?.slice(0, 60)}`);
            break;
          case 'drop': {
            const { [field]: _dropped, ...rest } = valid;
            reqBody = { kind: 'json', value: rest };
            labels.push(`body without ${field}`);
            break;
          }
          case 'extra':
            reqBody = { kind: 'json', value: { ...valid, idempotency_key: m.value, tenant_id: 'someone-else', id: '00000000-0000-0000-0000-000000000000', extra: m.value } };
            labels.push('extra fields');
            break;
          case 'whole':
            reqBody = { kind: 'json', value: m.value };
            labels.push(`body=${JSON.stringify(m.value)?.slice(0, 60)}`);
            break;
          case 'raw':
            reqBody = { kind: 'raw', bytes: Buffer.isBuffer(m.raw.text) ? m.raw.text : Buffer.from(m.raw.text, 'utf8'), contentType: 'application/json' };
            labels.push(`raw ${m.raw.label}`);
            break;
          case 'content-type':
            reqBody = { kind: 'raw', bytes: Buffer.from(JSON.stringify(valid), 'utf8'), contentType: m.contentType };
            labels.push(`content-type ${m.contentType}`);
            break;
        }
      } else if (m.bodyMode === 'raw') {
        // A body on a GET or DELETE.
        reqBody = { kind: 'raw', bytes: Buffer.from(typeof m.raw.text === 'string' ? m.raw.text.slice(0, 5000) : m.raw.text), contentType: 'application/json' };
        labels.push(`raw body on ${spec.method}: ${m.raw.label}`);
      }
      return { method: spec.method, url: qs ? `${path}?${qs}` : path, headers, body: reqBody, label: labels.join('; ') };
    });
  });
}
