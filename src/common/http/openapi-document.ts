import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';

/**
 * Finishing touches that make the generated document fit for client generators
 * (openapi-typescript, openapi-generator): stable operationIds, the tenant header where it
 * applies, both auth schemes, an example for every request and success response, and the error
 * envelope on every error response. One table here rather than decorators on every handler, so
 * the names are reviewed in one place and stay stable when a controller method is renamed.
 */

interface OperationInfo {
  id: string;
  /** Probes: no key, no tenant. */
  public?: true;
}

/** `METHOD /path` → operation. Renaming an id breaks generated clients: add, never rename. */
export const OPERATIONS: Record<string, OperationInfo> = {
  'GET /healthz': { id: 'getLiveness', public: true },
  'GET /health': { id: 'getLivenessAlias', public: true },
  'GET /readyz': { id: 'getReadiness', public: true },
  'GET /ready': { id: 'getReadinessAlias', public: true },
  'GET /ops/migrations': { id: 'getMigrationStatus' },
  'POST /v1/episodes': { id: 'createEpisode' },
  'POST /v1/episodes/batch': { id: 'createEpisodesBatch' },
  'POST /v1/memories/compile': { id: 'compileMemories' },
  'GET /v1/memories/compile/{job_id}': { id: 'getCompileJob' },
  'GET /v1/memories/search': { id: 'searchMemories' },
  'POST /v1/memories': { id: 'createMemory' },
  'GET /v1/memories/{id}': { id: 'getMemory' },
  'PATCH /v1/memories/{id}': { id: 'correctMemory' },
  'DELETE /v1/memories/{id}': { id: 'forgetMemory' },
  'POST /v1/context': { id: 'getContext' },
  'POST /v1/context/explain': { id: 'explainContext' },
  'POST /v1/resolutions': { id: 'upsertResolution' },
  'GET /v1/resolutions': { id: 'listResolutions' },
  'GET /v1/subjects/{subject_id}/health': { id: 'getSubjectHealth' },
  'GET /v1/subjects/{subject_id}/sla': { id: 'getSubjectSla' },
  'POST /v1/handoff': { id: 'createHandoff' },
  'GET /v1/subjects': { id: 'listSubjects' },
  'DELETE /v1/subjects/{subject_id}': { id: 'deleteSubject' },
  'GET /v1/timeline': { id: 'getTimeline' },
  'GET /admin/jobs': { id: 'listJobs' },
  'GET /admin/tenant-audit': { id: 'getTenantAudit' },
  'GET /admin/export/{subject_id}': { id: 'exportSubject' },
  'POST /admin/import': { id: 'importSubject' },
  'GET /admin/webhooks': { id: 'listWebhookEvents' },
  'GET /admin/webhooks/stats': { id: 'getWebhookStats' },
  'GET /admin/webhooks/{event_id}': { id: 'getWebhookEvent' },
  'POST /admin/webhooks/dead-letters/requeue': { id: 'requeueWebhookDeadLetters' },
  'GET /admin/snapshots': { id: 'listSnapshots' },
  'POST /admin/snapshots/restore-by-name': { id: 'restoreSnapshotByName' },
  'POST /admin/snapshots/{snapshot_id}/restore': { id: 'restoreSnapshot' },
  'POST /admin/cleanup': { id: 'cleanupSnapshots' },
  'POST /admin/api-keys': { id: 'createApiKey' },
  'GET /admin/api-keys': { id: 'listApiKeys' },
  'POST /admin/api-keys/{id}/rotate': { id: 'rotateApiKey' },
  'DELETE /admin/api-keys/{id}': { id: 'revokeApiKey' },
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };
const TENANT_PARAMETER = 'TenantId';

/**
 * An operation Nest named `FooController_bar` (or `…_bar[1]` for a second path) and the table
 * above does not know: `bar`, with the controller's name when `bar` alone is taken. Stable as
 * long as the handler keeps its name; the table is the place for a better one.
 */
function fallbackId(nestId: string | undefined, method: string, path: string, taken: Set<string>): string {
  const match = /^(\w+?)Controller_(\w+?)(?:\[(\d+)\])?$/.exec(nestId ?? '');
  const base = match ? match[2] : `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
  let id = match && taken.has(base) ? `${base}${match[1]}` : base;
  if (match?.[3] !== undefined && match[3] !== '0') id = `${id}Alias${match[3]}`;
  return id;
}

/** Example values by field name, for fields whose DTO gives none: one support conversation throughout. */
const FIELD_EXAMPLES: Record<string, unknown> = {
  subject_id: 'user-42',
  session_id: 'chat-2026-11-25',
  tenant_id: 'acme',
  source: 'support-chat',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: 'I am on the Team plan and my invoice export fails.' }, { role: 'assistant', content: 'Try exporting as CSV from Billing > Invoices.' }] },
  task: 'Help the customer with their failing invoice export',
  content: 'I am on the Team plan.',
  summary: 'plan: Team',
  q: 'invoice',
  idempotency_key: 'chat-2026-11-25-msg-1',
  assembled_context: '## Task\nHelp the customer with their failing invoice export\n\n## About this user\n- I am on the Team plan.',
  reason: 'escalation',
  name: 'before-migration',
};
const EXAMPLE_UUID = '8d0f2c8e-3c55-4f0b-9a55-2d1c3b9e7a10';
const EXAMPLE_TIME = '2026-11-25T09:30:00.000Z';

/** The error body each status stands for, so an example 404 does not read `validation_error`. */
const ERROR_EXAMPLES: Record<string, [string, string, unknown]> = {
  '400': ['missing_tenant', 'X-Tenant-ID header is required.', null],
  '401': ['missing_api_key', 'X-API-Key header is required.', null],
  '403': ['invalid_api_key', 'Invalid API key.', null],
  '404': ['not_found', 'Not found.', null],
  '409': ['conflict', 'The resource changed meanwhile.', null],
  '413': ['payload_too_large', 'Request body too large.', null],
  '422': ['validation_error', 'Request validation failed', [{ type: 'isString', loc: ['body', 'subject_id'], msg: 'subject_id must be a string' }]],
  '429': ['rate_limited', 'Rate limit exceeded. Max 60 requests per minute.', null],
  '503': ['service_unavailable', 'Database unavailable.', null],
};

/** A small example value built from a schema: its own example, first enum value, or a typed placeholder. */
export function exampleOf(schema: SchemaObject | ReferenceObject | undefined, doc: OpenAPIObject, depth = 0, field = ''): unknown {
  if (schema === undefined || depth > 6) return undefined;
  if ('$ref' in schema) return exampleOf(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc, depth + 1, field);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  if (field in FIELD_EXAMPLES) return FIELD_EXAMPLES[field];
  const variants = schema.oneOf ?? schema.anyOf ?? schema.allOf;
  if (variants?.length) return exampleOf(variants[0], doc, depth + 1, field);
  switch (schema.type) {
    case 'object': {
      if (!schema.properties) return {};
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties)) {
        const value = exampleOf(prop, doc, depth + 1, key);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items, doc, depth + 1, field.replace(/_ids$/, '_id'))].filter((v) => v !== undefined) : [];
    case 'string':
      if (schema.format === 'date-time' || /_at$/.test(field)) return EXAMPLE_TIME;
      return schema.format === 'uuid' || field === 'id' || /_id$/.test(field) ? EXAMPLE_UUID : field === '' ? 'string' : field;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

function withExample(content: Record<string, { schema?: SchemaObject | ReferenceObject; example?: unknown; examples?: unknown }> | undefined, doc: OpenAPIObject): void {
  for (const media of Object.values(content ?? {})) {
    if (media.example !== undefined || media.examples !== undefined) continue;
    const example = exampleOf(media.schema, doc);
    if (example !== undefined) media.example = example;
  }
}

export function finishOpenApi(doc: OpenAPIObject, tenantHeader: string): OpenAPIObject {
  doc.components ??= {};
  doc.components.securitySchemes = {
    api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The service key or a key issued to a tenant.' },
    bearer: { type: 'http', scheme: 'bearer', description: 'The same key sent as `Authorization: Bearer <key>` (what agent and MCP clients send).' },
  };
  doc.security = [{ api_key: [] }, { bearer: [] }];
  doc.components.parameters = {
    ...doc.components.parameters,
    [TENANT_PARAMETER]: {
      name: tenantHeader,
      in: 'header',
      required: false,
      description: 'The tenant whose data the call reads and writes. Required when the service runs with SERVICE_REQUIRE_TENANT=true (400 missing_tenant without it).',
      schema: { type: 'string', minLength: 1, maxLength: 256, example: 'acme' },
    } satisfies ParameterObject,
  };
  const taken = new Set(Object.values(OPERATIONS).map((o) => o.id));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (!op) continue;
      const info = OPERATIONS[`${method.toUpperCase()} ${path}`];
      op.operationId = info?.id ?? fallbackId(op.operationId, method, path, taken);
      taken.add(op.operationId);
      if (info?.public) op.security = [];
      if (path.startsWith('/v1/')) op.parameters = [...(op.parameters ?? []), { $ref: `#/components/parameters/${TENANT_PARAMETER}` }];
      if (op.requestBody && !('$ref' in op.requestBody)) withExample(op.requestBody.content, doc);
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, ResponseObject | ReferenceObject][]) {
        if ('$ref' in response) continue;
        const r = response;
        if (/^[45]/.test(status)) {
          const [code, message, details] = ERROR_EXAMPLES[status] ?? ['internal_error', 'Internal server error.', null];
          const example = { error: { code, message, details, request_id: 'req-5f2a9c' } };
          r.content = { 'application/json': { schema: ERROR_ENVELOPE, example } };
        }
        withExample(r.content, doc);
      }
    }
  }
  return doc;
}
