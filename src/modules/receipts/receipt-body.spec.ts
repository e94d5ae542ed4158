import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { memoryEntry, provenanceHash } from './receipt-body';

jest.mock('canonicalize', () => {
  const real = jest.requireActual('canonicalize');
  return { __esModule: true, default: jest.fn(real.default ?? real) };
});
const canonicalizeCalls = () => (canonicalize as unknown as jest.Mock).mock.calls.length;

const memory = (content: string, ids: string[] | null = ['e1', 'e2']) => ({
  id: 'm-1',
  kind: 'profile_fact',
  content,
  valid_from: new Date('2026-11-27T10:00:00Z'),
  valid_to: null,
  status: 'active',
  source_episode_ids: ids,
  attribute_key: 'city',
});

describe('receipt entries', () => {
  it('hash a memory as the SHA-256 of the JCS of its content and source ids', () => {
    const expected = createHash('sha256').update('{"content":"Lives in Lisbon","source_episode_ids":["e1","e2"]}', 'utf8').digest('hex');
    expect(provenanceHash('Lives in Lisbon', ['e1', 'e2'])).toBe(expected);
    expect(memoryEntry(memory('Lives in Lisbon'), 0, 1).provenance_hash).toBe(expected);
  });

  it('reuse the hash of a memory seen before, and only while its content and source ids are unchanged', () => {
    const first = memoryEntry(memory('Prefers email'), 0, 1).provenance_hash;
    const calls = canonicalizeCalls();
    expect(memoryEntry(memory('Prefers email'), 3, 0.5).provenance_hash).toBe(first);
    expect(canonicalizeCalls()).toBe(calls);
    expect(memoryEntry(memory('Prefers phone'), 0, 1).provenance_hash).toBe(provenanceHash('Prefers phone', ['e1', 'e2']));
    expect(memoryEntry(memory('Prefers phone', ['e1']), 0, 1).provenance_hash).toBe(provenanceHash('Prefers phone', ['e1']));
    expect(memoryEntry(memory('Prefers phone', null), 0, 1).provenance_hash).toBe(provenanceHash('Prefers phone', []));
  });
});
