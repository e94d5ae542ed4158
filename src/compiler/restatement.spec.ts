import { describeMemory, resolveRestatement, restates } from './restatement';

const at = (iso: string) => new Date(iso);

describe('describeMemory', () => {
  it('gives a profile fact about one attribute the compiler’s key and a label: value summary', () => {
    expect(describeMemory('profile_fact', 'My name is Juno Marsh.')).toEqual({ attribute_key: 'profile:name', summary: 'name: Juno Marsh' });
  });

  it('gives no key to other kinds or to text stating no single attribute, and a summary cut from the content', () => {
    expect(describeMemory('procedure', 'Restart the router, then re-pair the device.')).toEqual({ attribute_key: null, summary: 'Restart the router, then re-pair the device.' });
    expect(describeMemory('profile_fact', 'Prefers short answers').attribute_key).toBeNull();
    expect(describeMemory('profile_fact', 'x '.repeat(300)).summary.length).toBeLessThanOrEqual(200);
  });
});

describe('restates', () => {
  it('matches the same kind with the same key, or the same content ignoring case and punctuation', () => {
    expect(restates({ kind: 'profile_fact', content: 'a', attribute_key: 'profile:plan' }, { kind: 'profile_fact', content: 'b', attribute_key: 'profile:plan' })).toBe(true);
    expect(restates({ kind: 'procedure', content: 'Reboot the hub!', attribute_key: null }, { kind: 'procedure', content: 'reboot  the hub', attribute_key: null })).toBe(true);
  });

  it('does not match another kind, another key, or empty content', () => {
    expect(restates({ kind: 'procedure', content: 'x', attribute_key: 'k' }, { kind: 'profile_fact', content: 'x', attribute_key: 'k' })).toBe(false);
    expect(restates({ kind: 'profile_fact', content: 'x', attribute_key: 'profile:plan' }, { kind: 'profile_fact', content: 'y', attribute_key: 'profile:name' })).toBe(false);
    expect(restates({ kind: 'procedure', content: '!!', attribute_key: null }, { kind: 'procedure', content: '?', attribute_key: null })).toBe(false);
  });
});

describe('resolveRestatement', () => {
  const old = { id: 'old', kind: 'profile_fact' as const, content: 'I am on the Pro plan', attribute_key: 'profile:plan', valid_from: at('2026-01-01T00:00:00Z') };
  const other = { id: 'other', kind: 'profile_fact' as const, content: 'My name is Ann', attribute_key: 'profile:name', valid_from: at('2026-01-01T00:00:00Z') };

  it('supersedes older restated memories and leaves the rest alone', () => {
    const out = resolveRestatement({ kind: 'profile_fact', content: 'I am on the Team plan', attribute_key: 'profile:plan', valid_from: at('2026-02-01T00:00:00Z') }, [old, other]);
    expect(out).toEqual({ supersede: ['old'], supersededBy: null });
  });

  it('stores older news as superseded by the earliest newer restatement', () => {
    const newer = { ...old, id: 'newer', valid_from: at('2026-03-01T00:00:00Z') };
    const newest = { ...old, id: 'newest', valid_from: at('2026-04-01T00:00:00Z') };
    const out = resolveRestatement({ kind: 'profile_fact', content: 'I am on the Free plan', attribute_key: 'profile:plan', valid_from: at('2026-02-01T00:00:00Z') }, [newest, newer]);
    expect(out).toEqual({ supersede: [], supersededBy: { id: 'newer', at: newer.valid_from } });
  });
});
