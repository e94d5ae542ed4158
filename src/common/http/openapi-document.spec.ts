import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exampleOf, OPERATIONS } from './openapi-document';

/**
 * Reads the checked-in openapi.json, which CI regenerates and diffs (the drift check), so these
 * rules hold for the document the service serves and clients generate from.
 */
const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'openapi.json'), 'utf8'));

interface Op {
  operationId: string;
  security?: unknown[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }>;
}

const operations: [string, Op][] = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Op]),
);

describe('openapi.json for code generators', () => {
  it('names every operation with a unique camelCase operationId, the reviewed ones as listed', () => {
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    for (const [entry, info] of Object.entries(OPERATIONS)) expect(operations.find(([e]) => e === entry)?.[1].operationId).toBe(info.id);
    expect(operations.find(([e]) => e === 'POST /v1/episodes')![1].operationId).toBe('createEpisode');
    expect(operations.find(([e]) => e === 'POST /v1/context')![1].operationId).toBe('getContext');
  });

  it('declares both auth schemes, required everywhere but on the probes', () => {
    expect(doc.components.securitySchemes.api_key).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ api_key: [] }, { bearer: [] }]);
    for (const [entry, op] of operations) {
      const isProbe = /^GET \/(healthz|health|readyz|ready)$/.test(entry);
      expect([entry, op.security]).toEqual([entry, isProbe ? [] : undefined]);
    }
  });

  it('declares the tenant header on every /v1 operation and nowhere else', () => {
    expect(doc.components.parameters.TenantId).toMatchObject({ name: 'X-Tenant-ID', in: 'header', required: false });
    for (const [entry, op] of operations) {
      const hasTenant = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/TenantId');
      expect([entry, hasTenant]).toEqual([entry, entry.split(' ')[1].startsWith('/v1/')]);
    }
  });

  it('gives every request body and JSON response an example, and every error response the envelope', () => {
    for (const [entry, op] of operations) {
      for (const media of Object.values(op.requestBody?.content ?? {})) expect([entry, media.example !== undefined]).toEqual([entry, true]);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const media of Object.values(response.content ?? {})) expect([entry, status, media.example !== undefined]).toEqual([entry, status, true]);
        if (/^[45]/.test(status)) {
          const json = response.content?.['application/json'];
          expect([entry, status, json?.schema?.$ref]).toEqual([entry, status, '#/components/schemas/ErrorEnvelopeDto']);
          expect((json?.example as { error: { code: string } }).error.code).toMatch(/^[a-z_]+$/);
        }
      }
    }
  });
});

describe('exampleOf', () => {
  const schemas = { Item: { type: 'object', properties: { id: { type: 'string' }, subject_id: { type: 'string' }, n: { type: 'integer', minimum: 1 }, kind: { type: 'string', enum: ['a', 'b'] }, at: { type: 'string', format: 'date-time' } } } };
  const local = { openapi: '3.0.0', info: { title: '', version: '' }, paths: {}, components: { schemas } } as never;

  it('prefers the schema’s example, then its default and enum, then a placeholder named after the field', () => {
    expect(exampleOf({ type: 'string', example: 'x', default: 'y' }, local)).toBe('x');
    expect(exampleOf({ type: 'string', default: 'y' }, local)).toBe('y');
    expect(exampleOf({ $ref: '#/components/schemas/Item' }, local)).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), subject_id: 'user-42', n: 1, kind: 'a', at: '2026-11-25T09:30:00.000Z' });
    expect(exampleOf({ type: 'array', items: { $ref: '#/components/schemas/Item' } }, local)).toHaveLength(1);
  });
});
