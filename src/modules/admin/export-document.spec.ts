import { ErrorCode } from 'src/common/errors/error-codes';
import {
  computeChecksum,
  type EpisodeItem,
  type ExportDocument,
  formatTimestampMicros,
  idConflictMessage,
  type MemoryItem,
  parseTimestampMicros,
  planImport,
  verifyDocument,
  writeExportDocument,
} from './export-document';
import { PYTHON_DOCUMENT } from '../../../test/fixtures/python-export-document';
import { parseLossless } from './python-json';

const EPISODE_ID = '3f1c2a4e-8b7d-4c1a-9e2f-1a2b3c4d5e6f';
const MEMORY_ID = '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d';

function verified(text = PYTHON_DOCUMENT): ExportDocument {
  const result = verifyDocument(parseLossless(text));
  if (!result.ok) throw new Error(result.message);
  return result.doc;
}

function reject(raw: unknown): { code: string; message: string } {
  const result = verifyDocument(raw);
  if (result.ok) throw new Error('expected a rejection');
  return result;
}

function episode(overrides: Partial<EpisodeItem> = {}): EpisodeItem {
  return {
    id: EPISODE_ID,
    subject_id: 'user-1',
    tenant_id: null,
    session_id: 's-1',
    source: 'chat',
    type: 'conversation',
    payload: { text: 'naïve' },
    metadata: {},
    provenance: {},
    created_at: '2026-01-02T03:04:05.123456+00:00',
    last_compiled_at: null,
    ...overrides,
  };
}

function memory(overrides: Partial<MemoryItem> = {}): MemoryItem {
  return {
    id: MEMORY_ID,
    subject_id: 'user-1',
    tenant_id: null,
    kind: 'profile_fact',
    content: 'likes tea',
    summary: '',
    confidence: 1,
    valid_from: '2026-01-02T03:04:05.123456+00:00',
    valid_to: null,
    source_episode_ids: [EPISODE_ID],
    metadata: {},
    status: 'active',
    embedding: [1, 0.25],
    attribute_key: null,
    superseded_by: null,
    created_at: '2026-01-02T03:04:05.123456+00:00',
    updated_at: '2026-01-02T03:04:05.123456+00:00',
    sensitivity_labels: [],
    ...overrides,
  };
}

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function exportText(episodes: EpisodeItem[], memories: MemoryItem[]): Promise<string> {
  const header = { exported_at: '2026-01-03T00:00:00.000000+00:00', subject_id: 'user-1', tenant_id: null };
  let text = '';
  for await (const chunk of writeExportDocument(header, iterate(episodes), iterate(memories))) text += chunk;
  return text;
}

describe('verifyDocument', () => {
  it('accepts a document written by the existing Python implementation and normalises it', () => {
    const doc = verified();
    expect(doc.counts).toEqual({ episodes: 1, memories: 1 });
    expect(doc.episodes[0].session_id).toBeNull();
    expect(doc.memories[0].confidence).toBe(1);
    expect(doc.memories[0].embedding).toEqual([0.1, -2, 1.5e-5]);
    expect(doc.memories[0].attribute_key).toBeNull();
    expect(doc.episodes[0].created_at).toBe('2026-01-02T03:04:05.123456+00:00');
  });

  it('fails the checksum when the body was parsed with JSON.parse (float text lost)', () => {
    expect(reject(JSON.parse(PYTHON_DOCUMENT)).code).toBe(ErrorCode.ChecksumMismatch);
  });

  it('rejects a tampered document with a message mentioning the checksum', () => {
    const rejection = reject(parseLossless(PYTHON_DOCUMENT.replace('"summary":"name"', '"summary":"nome"')));
    expect(rejection.code).toBe(ErrorCode.ChecksumMismatch);
    expect(rejection.message).toContain('checksum');
  });

  it('rejects any format version but "1.0", and a missing one, mentioning the version', () => {
    for (const version of ['2.0', '1', null]) {
      const raw = parseLossless(PYTHON_DOCUMENT) as Record<string, unknown>;
      raw.format_version = version;
      const rejection = reject(raw);
      expect(rejection.code).toBe(ErrorCode.UnsupportedFormatVersion);
      expect(rejection.message).toContain('version');
    }
    const numeric = reject(parseLossless(PYTHON_DOCUMENT.replace('"format_version":"1.0"', '"format_version":1.0')));
    expect(numeric.code).toBe(ErrorCode.UnsupportedFormatVersion);
    const missing = parseLossless(PYTHON_DOCUMENT) as Record<string, unknown>;
    delete missing.format_version;
    expect(reject(missing).message).toContain('version');
  });

  it('rejects a document without a checksum or without item arrays', () => {
    const noChecksum = parseLossless(PYTHON_DOCUMENT) as Record<string, unknown>;
    delete noChecksum.checksum;
    expect(reject(noChecksum)).toEqual({
      ok: false,
      code: ErrorCode.InvalidDocument,
      message: 'Invalid export document: checksum must be a string',
    });
    expect(reject({ format_version: '1.0', episodes: {}, memories: [], checksum: 'x' }).code).toBe(
      ErrorCode.InvalidDocument,
    );
    expect(reject([]).code).toBe(ErrorCode.InvalidDocument);
  });

  it('names the offending field of a well-checksummed but malformed item', async () => {
    const cases: [Partial<MemoryItem>, string][] = [
      [{ id: 'not-a-uuid' }, 'memories[0].id must be a UUID'],
      [{ kind: 'raw_episode' as MemoryItem['kind'] }, 'memories[0].kind must be one of'],
      [{ status: 'gone' as MemoryItem['status'] }, 'memories[0].status must be one of'],
      [{ valid_to: 'yesterday' }, 'memories[0].valid_to must be an ISO 8601 timestamp'],
      [{ embedding: ['x'] as unknown as number[] }, 'memories[0].embedding[0] must be a finite number'],
      [{ source_episode_ids: ['e1'] }, 'memories[0].source_episode_ids[0] must be a UUID'],
    ];
    for (const [overrides, message] of cases) {
      const rejection = reject(parseLossless(await exportText([episode()], [memory(overrides)])));
      expect(rejection.code).toBe(ErrorCode.InvalidDocument);
      expect(rejection.message).toContain(message);
    }
    const twice = reject(parseLossless(await exportText([episode(), episode()], [])));
    expect(twice.message).toContain('episodes[1].id repeats id');
    const emptySource = reject(parseLossless(await exportText([episode({ source: '' })], [])));
    expect(emptySource.message).toContain('episodes[0].source must be 1-256 characters');
  });
});

describe('writeExportDocument', () => {
  it('writes a document that verifies, with floats as floats and counts and checksum last', async () => {
    const text = await exportText([episode()], [memory()]);
    expect(text).toContain('"confidence": 1.0');
    expect(text).toContain('"embedding": [1.0, 0.25]');
    expect(text).toMatch(/"counts": \{"episodes": 1, "memories": 1\}, "checksum": "[0-9a-f]{64}"\}$/);
    const doc = verified(text);
    expect(doc.episodes[0]).toEqual(episode());
    expect(doc.memories[0]).toEqual(memory());
  });

  it('hashes exactly the python-json text of {"episodes": [...], "memories": [...]}', async () => {
    const episodes = [episode(), episode({ id: '00000000-0000-4000-8000-000000000001' })];
    const memories = [memory(), memory({ id: '00000000-0000-4000-8000-000000000002', confidence: 0.5 })];
    const text = await exportText(episodes, memories);
    const written = parseLossless(text) as { episodes: unknown[]; memories: unknown[] };
    expect(JSON.parse(text).checksum).toBe(computeChecksum(written.episodes, written.memories));
    const empty = JSON.parse(await exportText([], []));
    expect(empty.checksum).toBe(computeChecksum([], []));
    expect(empty.counts).toEqual({ episodes: 0, memories: 0 });
  });
});

describe('writeExportDocument: re-exporting a document of the existing implementation', () => {
  it('leaves unset extra keys out and writes a whole-second timestamp without a fraction, as Python does', async () => {
    const onSecond = '2026-01-02T03:04:05.000000+00:00';
    const text = await exportText([episode({ session_id: null, created_at: onSecond })], [memory({ attribute_key: null, superseded_by: null, valid_from: onSecond })]);
    const doc = JSON.parse(text);
    expect(doc.episodes[0]).not.toHaveProperty('session_id');
    expect(doc.memories[0]).not.toHaveProperty('attribute_key');
    expect(doc.memories[0]).not.toHaveProperty('superseded_by');
    expect(doc.episodes[0].created_at).toBe('2026-01-02T03:04:05+00:00');
    expect(doc.memories[0].valid_from).toBe('2026-01-02T03:04:05+00:00');
    expect(doc.memories[0].created_at).toBe('2026-01-02T03:04:05.123456+00:00');
  });

  it('gives the Python fixture, once imported, the same items and checksum as its original', async () => {
    const doc = verified();
    const original = parseLossless(PYTHON_DOCUMENT) as { checksum: string };
    const text = await exportText(doc.episodes, doc.memories);
    expect(JSON.parse(text).checksum).toBe(original.checksum);
  });
});

describe('planImport', () => {
  it('keeps ids, moves items to the target subject and tenant, and writes jsonb as text', () => {
    const plan = planImport(verified(), {
      targetSubjectId: 'copy',
      targetTenantId: 't2',
      preserveIds: true,
      newId: () => 'unused',
    });
    expect(plan).toMatchObject({ subject_id: 'copy', tenant_id: 't2', ids_preserved: true });
    expect(plan.episodes[0]).toMatchObject({ id: EPISODE_ID, subject_id: 'copy', tenant_id: 't2' });
    // Number text survives into the jsonb column: 1.0 stays a float, 1e-07 keeps its value.
    expect(plan.episodes[0].payload).toContain('"score": 1.0');
    expect(plan.episodes[0].payload).toContain('"tiny": 1e-07');
    expect(plan.memories[0]).toMatchObject({ id: MEMORY_ID, source_episode_ids: [EPISODE_ID], metadata: '{"k": 0.5}' });
  });

  it('defaults to the document subject and each item tenant', () => {
    const plan = planImport(verified(), { preserveIds: true, newId: () => 'unused' });
    expect(plan).toMatchObject({ subject_id: 'user-1', tenant_id: 'acme' });
    expect(plan.memories[0].tenant_id).toBe('acme');
  });

  it('gives new ids without preserve_ids and remaps references inside the document only', async () => {
    const outside = '99999999-9999-4999-8999-999999999999';
    const older = memory({ id: '00000000-0000-4000-8000-0000000000aa', superseded_by: MEMORY_ID, status: 'superseded' });
    const text = await exportText([episode()], [memory({ source_episode_ids: [EPISODE_ID, outside] }), older]);
    let n = 0;
    const plan = planImport(verified(text), { preserveIds: false, newId: () => `new-${++n}` });
    expect(plan.ids_preserved).toBe(false);
    expect(plan.episodes[0].id).toBe('new-1');
    expect(plan.memories.map((m) => m.id)).toEqual(['new-2', 'new-3']);
    expect(plan.memories[0].source_episode_ids).toEqual(['new-1', outside]);
    expect(plan.memories[1].superseded_by).toBe('new-2');
  });
});

describe('timestamps', () => {
  it('reads Python and Postgres spellings into epoch microseconds', () => {
    const micros = 1767323045123456n;
    for (const text of [
      '2026-01-02T03:04:05.123456+00:00',
      '2026-01-02 03:04:05.123456+00',
      '2026-01-02T03:04:05.123456Z',
      '2026-01-02T03:04:05.123456',
      '2026-01-02T04:34:05.1234567+01:30',
    ]) {
      expect(parseTimestampMicros(text)).toBe(micros);
    }
    expect(parseTimestampMicros('2026-01-02T03:04:05+00:00')).toBe(1767323045000000n);
  });

  it('rejects impossible dates and other text', () => {
    for (const text of ['2026-02-30T00:00:00Z', '2026-01-02T24:00:00Z', '2026-01-02', 'now', '2026-01-02T00:00:00+25:00']) {
      expect(parseTimestampMicros(text)).toBeNull();
    }
  });

  it('writes Python isoformat in UTC, also before 1970 and for early years', () => {
    expect(formatTimestampMicros(1767323045123456n)).toBe('2026-01-02T03:04:05.123456+00:00');
    expect(formatTimestampMicros(-1n)).toBe('1969-12-31T23:59:59.999999+00:00');
    expect(formatTimestampMicros(parseTimestampMicros('0050-06-01T00:00:00Z')!)).toBe('0050-06-01T00:00:00.000000+00:00');
  });
});

describe('idConflictMessage', () => {
  it('starts with "ID conflict" as existing clients expect', () => {
    expect(idConflictMessage([EPISODE_ID], [])).toMatch(/^ID conflict: 1 episode id\(s\) and 0 memory id\(s\)/);
  });
});
