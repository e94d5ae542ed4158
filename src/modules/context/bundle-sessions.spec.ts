import { bundleSessions } from './bundle-sessions';
import type { ContextCandidate, ContextLabel } from './ranking';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

function item(id: string, label: ContextLabel, session: string | null, minutes: number, sources: string[] = [id]): ContextCandidate {
  return { id, label, text: id, created_at: new Date(T0 + minutes * 60_000), valid_to: null, session_id: session, source_episode_ids: sources };
}

describe('bundleSessions', () => {
  it('describes each session of the included episodes: distinct episodes, first and last time', () => {
    const sessions = bundleSessions([
      item('e3', 'raw_episode', 'billing', 30),
      item('sum-e1', 'episode_summary', 'billing', 0, ['e1']),
      item('e1', 'raw_episode', 'billing', 0),
      item('e9', 'raw_episode', 'api', 90),
    ]);
    expect(sessions).toEqual([
      { session_id: 'api', episode_count: 1, first_at: '2026-01-05T10:30:00.000Z', last_at: '2026-01-05T10:30:00.000Z' },
      { session_id: 'billing', episode_count: 2, first_at: '2026-01-05T09:00:00.000Z', last_at: '2026-01-05T09:30:00.000Z' },
    ]);
  });

  it('leaves out items without a session and memories that belong to no episode of one', () => {
    expect(bundleSessions([item('e1', 'raw_episode', null, 0), item('f1', 'profile_fact', 'x', 0), item('p1', 'procedure', 'x', 0)])).toEqual([]);
  });
});
