/**
 * One place for each request default (issue 18, finding 5): the DTO that validates a field
 * declares its default as a named constant, and the service's fallback (for callers that
 * build the request themselves: MCP tools, replay) uses that same constant. This spec fails
 * when a default drifts from its constant in the DTO, in the checked-in openapi.json, or
 * when a service spells a literal fallback for a request field again.
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { DEFAULT_SEARCH_LIMIT, SearchMemoriesQueryDto } from 'src/modules/memories/dto/search.dto';
import { DEFAULT_MEMORY_CONFIDENCE } from 'src/modules/memories/dto/memory-write.dto';
import { DEFAULT_REPLAY_AS_OF } from 'src/modules/replay/dto/replay.dto';
import { CleanupQueryDto, DEFAULT_CLEANUP_MAX_AGE_HOURS, DEFAULT_CLEANUP_PREFIX } from 'src/modules/snapshots/dto/cleanup.dto';
import { DEFAULT_SUBJECT_LIST_LIMIT, DEFAULT_TIMELINE_LIMIT } from 'src/modules/subjects/dto/subjects.dto';
import { DEFAULT_HANDOFF_MAX_TOKENS, DEFAULT_HANDOFF_REASON, HandoffRequestDto } from 'src/modules/support/dto/handoff.dto';
import { DEFAULT_RESOLUTION_STATUS, UpsertResolutionDto } from 'src/modules/support/dto/resolution.dto';
import { DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES, DEFAULT_RESOLUTION_THRESHOLD_HOURS, SlaQueryDto } from 'src/modules/support/dto/sla.dto';
import { DEFAULT_SLA_THRESHOLDS } from 'src/modules/support/sla';

const ROOT = resolve(__dirname, '..');

interface OpenApiParam {
  name: string;
  description?: string;
  schema?: { default?: unknown };
}
interface OpenApi {
  paths: Record<string, Record<string, { parameters?: OpenApiParam[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, { default?: unknown }> }> };
}
const openapi = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as OpenApi;

function param(path: string, method: string, name: string): OpenApiParam {
  const found = openapi.paths[path]?.[method]?.parameters?.find((p) => p.name === name);
  if (found === undefined) throw new Error(`openapi.json has no ${method} ${path} parameter ${name}`);
  return found;
}

describe('request defaults', () => {
  it('a DTO built from an empty request carries the named defaults', () => {
    expect(plainToInstance(SearchMemoriesQueryDto, {}).limit).toBe(DEFAULT_SEARCH_LIMIT);
    const handoff = plainToInstance(HandoffRequestDto, {});
    expect([handoff.reason, handoff.max_tokens]).toEqual([DEFAULT_HANDOFF_REASON, DEFAULT_HANDOFF_MAX_TOKENS]);
    expect(plainToInstance(UpsertResolutionDto, {}).status).toBe(DEFAULT_RESOLUTION_STATUS);
    const sla = plainToInstance(SlaQueryDto, {});
    expect([sla.first_response_threshold_minutes, sla.resolution_threshold_hours]).toEqual([
      DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES,
      DEFAULT_RESOLUTION_THRESHOLD_HOURS,
    ]);
    const cleanup = plainToInstance(CleanupQueryDto, {});
    expect([cleanup.prefix, cleanup.max_age_hours]).toEqual([DEFAULT_CLEANUP_PREFIX, DEFAULT_CLEANUP_MAX_AGE_HOURS]);
  });

  it('the SLA query defaults are the thresholds the health score uses', () => {
    expect({ firstResponseThresholdMinutes: DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES, resolutionThresholdHours: DEFAULT_RESOLUTION_THRESHOLD_HOURS }).toEqual({
      ...DEFAULT_SLA_THRESHOLDS,
    });
  });

  it('openapi.json documents the same defaults', () => {
    expect(param('/v1/memories/search', 'get', 'limit').schema?.default).toBe(DEFAULT_SEARCH_LIMIT);
    expect(param('/v1/subjects/{subject_id}/sla', 'get', 'first_response_threshold_minutes').schema?.default).toBe(DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES);
    expect(param('/v1/subjects/{subject_id}/sla', 'get', 'resolution_threshold_hours').schema?.default).toBe(DEFAULT_RESOLUTION_THRESHOLD_HOURS);
    expect(param('/admin/cleanup', 'post', 'prefix').schema?.default).toBe(DEFAULT_CLEANUP_PREFIX);
    expect(param('/admin/cleanup', 'post', 'max_age_hours').schema?.default).toBe(DEFAULT_CLEANUP_MAX_AGE_HOURS);
    const schemas = openapi.components.schemas;
    expect(schemas.RememberMemoryDto.properties?.confidence.default).toBe(DEFAULT_MEMORY_CONFIDENCE);
    expect(schemas.HandoffRequestDto.properties?.reason.default).toBe(DEFAULT_HANDOFF_REASON);
    expect(schemas.HandoffRequestDto.properties?.max_tokens.default).toBe(DEFAULT_HANDOFF_MAX_TOKENS);
    expect(schemas.UpsertResolutionDto.properties?.status.default).toBe(DEFAULT_RESOLUTION_STATUS);
    expect(schemas.ReplayRequestDto.properties?.as_of.default).toBe(DEFAULT_REPLAY_AS_OF);
    // These two defaults are the service's parameters; the DTO states them in its description.
    expect(param('/v1/subjects', 'get', 'limit').description).toContain(`default ${DEFAULT_SUBJECT_LIST_LIMIT}`);
    expect(param('/v1/timeline', 'get', 'limit').description).toContain(`default ${DEFAULT_TIMELINE_LIMIT}`);
  });

  it('no service spells a literal fallback for a request field', () => {
    const services = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? services(join(dir, e.name)) : e.name.endsWith('.service.ts') ? [join(dir, e.name)] : [],
      );
    // `dto.limit ?? 20`, `query.status ?? 'open'`, `limit = 50`: the default belongs in a named constant.
    // Absence as emptiness (`?? ''`, `offset = 0`) is no default to keep in step, so it may stay.
    const literalFallback = /\b(dto|query|body|q|request)\.\w+ \?\? (?!''|0\b)(-?\d|'|"|`)|\b(limit|offset|max_tokens|maxTokens) = (?!0\b)\d/;
    const found = services(join(ROOT, 'src/modules')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(ROOT, file)}:${i + 1}` }))
        .filter(({ line }) => literalFallback.test(line) && !/^\s*(\/\/|\*)/.test(line))
        .map(({ line, at }) => `${at}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
