import type { EpisodeItem, MemoryItem } from 'src/modules/admin/export-document';
import { planRestore, type RestoreInput } from './restore-plan';

const E1 = '00000000-0000-4000-8000-0000000000e1';
const E2 = '00000000-0000-4000-8000-0000000000e2';
const M1 = '00000000-0000-4000-8000-0000000000a1';
const M2 = '00000000-0000-4000-8000-0000000000a2';
const OUTSIDE = '00000000-0000-4000-8000-0000000000ff';
const SNAPSHOT = '00000000-0000-4000-8000-00000000005a';

function episode(id: string, createdAt: string): EpisodeItem {
  return {
    id,
    subject_id: '_snapshot/demo/v1',
    tenant_id: 'acme',
    session_id: 's-1',
    source: 'chat',
    type: 'conversation',
    payload: { text: 'hi' },
    metadata: {},
    provenance: { channel: 'web' },
    created_at: createdAt,
    last_compiled_at: '2026-01-01T10:00:00.000002+00:00',
  };
}

function memory(id: string, overrides: Partial<MemoryItem> = {}): MemoryItem {
  return {
    id,
    subject_id: '_snapshot/demo/v1',
    tenant_id: 'acme',
    kind: 'profile_fact',
    content: 'likes tea',
    summary: '',
    confidence: 0.9,
    valid_from: '2026-01-01T10:00:00.000002+00:00',
    valid_to: null,
    source_episode_ids: [E1, E2, OUTSIDE],
    metadata: { k: 1 },
    status: 'active',
    embedding: null,
    attribute_key: null,
    superseded_by: null,
    created_at: '2026-01-01T10:00:00.000002+00:00',
    updated_at: '2026-01-01T11:00:00+00:00',
    ...overrides,
  };
}

function input(overrides: Partial<RestoreInput> = {}): RestoreInput {
  let n = 0;
  return {
    snapshotId: SNAPSHOT,
    targetSubjectId: 'restored',
    episodes: [episode(E1, '2026-01-01T09:00:00.000001+00:00'), episode(E2, '2026-01-01T10:00:00.000001+00:00')],
    memories: [memory(M1), memory(M2, { status: 'superseded', superseded_by: M1, valid_to: '2026-01-01T12:00:00+00:00' })],
    now: new Date('2026-03-01T00:00:00.000Z'),
    newId: () => `new-${++n}`,
    ...overrides,
  };
}

describe('planRestore', () => {
  it('anchors the newest episode at now and shifts every timestamp by the same delta', () => {
    const plan = planRestore(input());
    expect(plan.episodes.map((e) => e.created_at)).toEqual([
      '2026-02-28T23:00:00.000000+00:00',
      '2026-03-01T00:00:00.000000+00:00',
    ]);
    expect(plan.episodes[0].last_compiled_at).toBe('2026-03-01T00:00:00.000001+00:00');
    expect(plan.memories[1]).toMatchObject({
      valid_from: '2026-03-01T00:00:00.000001+00:00',
      valid_to: '2026-03-01T01:59:59.999999+00:00',
      created_at: '2026-03-01T00:00:00.000001+00:00',
      updated_at: '2026-03-01T00:59:59.999999+00:00',
    });
    expect(plan.memories[0].valid_to).toBeNull();
    expect(plan.shiftMicros).toBe(5_061_599_999_999n);
  });

  it('regenerates ids and remaps references inside the snapshot only', () => {
    const plan = planRestore(input());
    expect(plan.episodes.map((e) => e.id)).toEqual(['new-1', 'new-2']);
    expect(plan.memories.map((m) => m.id)).toEqual(['new-3', 'new-4']);
    expect(plan.memories[0].source_episode_ids).toEqual(['new-1', 'new-2', OUTSIDE]);
    expect(plan.memories[1].superseded_by).toBe('new-3');
    expect(plan.episodes.every((e) => e.subject_id === 'restored' && e.tenant_id === 'acme')).toBe(true);
  });

  it('records the snapshot and original ids in provenance and memory metadata', () => {
    const plan = planRestore(input());
    expect(JSON.parse(plan.episodes[0].provenance_json)).toEqual({
      channel: 'web',
      restored_from_snapshot: SNAPSHOT,
      original_episode_id: E1,
    });
    expect(JSON.parse(plan.memories[0].metadata_json)).toEqual({
      k: 1,
      restored_from_snapshot: SNAPSHOT,
      original_memory_id: M1,
    });
    expect(plan.episodes[0].session_id).toBe('s-1');
  });

  it('anchors the newest memory when the snapshot has no episodes, and moves nothing when empty', () => {
    const memoriesOnly = planRestore(input({ episodes: [] }));
    expect(memoriesOnly.memories[0].created_at).toBe('2026-03-01T00:00:00.000000+00:00');
    expect(memoriesOnly.memories[0].source_episode_ids).toEqual([E1, E2, OUTSIDE]);
    expect(planRestore(input({ episodes: [], memories: [] }))).toEqual({ shiftMicros: 0n, episodes: [], memories: [] });
  });

  it('refuses a row with an unreadable timestamp', () => {
    expect(() => planRestore(input({ episodes: [episode(E1, 'yesterday')] }))).toThrow('unreadable timestamp');
  });
});
