import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Episode, Memory, Session, Timeline } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { MemoryActions } from '../components/memory-actions.js';
import { RememberForm } from '../components/remember-form.js';
import { SupportPanel } from './support.js';
import { formatTime, TimelineRow } from '../components/timeline-row.js';
import { VirtualList } from '../components/virtual-list.js';
import { href } from '../route.js';
import { buildTimeline, episodeText, facets, NO_FILTERS, versionsOf } from '../timeline.js';
import type { TimelineFilters, TimelineItem } from '../timeline.js';

/** Rows per API page: the API also stops a page at SERVICE_READ_PAGE_BYTES. */
const PAGE = 1000;
/** Rows are fixed height for the virtual list: one line wide, two lines (time and kind over text) on a phone. */
const ROW_HEIGHT = 44;
const NARROW_ROW_HEIGHT = 64;
const NARROW = '(max-width: 760px)';

/**
 * A subject's timeline. Pages are fetched one after another (cursor) and appended, so the first
 * rows show at once and a subject with 10,000 memories never sits in one response; the list is
 * virtualised, so only the rows in view are in the DOM.
 */
export function SubjectPage({ session, subjectId }: { session: Session; subjectId: string }) {
  const [episodes, setEpisodes] = useState<Episode[]>([]);
  const [memories, setMemories] = useState<Memory[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [filters, setFilters] = useState<TimelineFilters>(NO_FILTERS);
  const [selected, setSelected] = useState<string | null>(null);
  const narrow = useMedia(NARROW);
  const [asOf, setAsOf] = useState('');
  const [remembering, setRemembering] = useState(false);

  useEffect(() => {
    let live = true;
    setEpisodes([]);
    setMemories([]);
    setLoading(true);
    setError(null);
    setSelected(null);
    (async () => {
      let cursor: string | null = null;
      do {
        const from = cursor ?? undefined;
        const page: Timeline = await api(session, (c) => c.getTimeline({ subject_id: subjectId, limit: PAGE, cursor: from, as_of: asOf ? new Date(asOf).toISOString() : undefined }));
        if (!live) return;
        setEpisodes((xs) => xs.concat(page.episodes));
        setMemories((xs) => xs.concat(page.memories));
        cursor = page.next_cursor;
      } while (cursor && live);
    })()
      .catch((e) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [session, subjectId, asOf]);

  const items = useMemo(() => buildTimeline(episodes, memories, filters), [episodes, memories, filters]);
  const f = useMemo(() => facets(episodes, memories), [episodes, memories]);
  const byId = useMemo(() => {
    const m = new Map<string, TimelineItem>();
    for (const e of episodes) m.set(e.id, { type: 'episode', at: e.created_at, episode: e });
    for (const x of memories) m.set(x.id, { type: 'memory', at: x.valid_from, memory: x });
    return m;
  }, [episodes, memories]);
  const current = selected ? byId.get(selected) : undefined;
  const replaceMemory = (m: Memory) => setMemories((xs) => (xs.some((x) => x.id === m.id) ? xs.map((x) => (x.id === m.id ? m : x)) : [...xs, m]));
  const set = (patch: Partial<TimelineFilters>) => setFilters({ ...filters, ...patch });

  return (
    <main class="subject">
      <h1>
        Subject <code>{subjectId}</code>
      </h1>
      <p class="muted">
        {asOf ? <strong>As it was at {new Date(asOf).toISOString()}: </strong> : null}
        {episodes.length} episodes, {memories.length} memories{loading ? ' (loading more…)' : ''} ·{' '}
        <a href={href(['context'], { subject: subjectId })}>Inspect a context bundle</a> · <a href={href(['receipts'], { subject: subjectId })}>Receipts</a>
      </p>
      {/* Writing into a past view would be misleading: remember only on the present timeline. */}
      {!asOf && !remembering ? (
        <div class="toolbar">
          <button type="button" onClick={() => setRemembering(true)}>
            Remember…
          </button>
        </div>
      ) : null}
      {remembering && !asOf ? (
        <RememberForm
          session={session}
          subjectId={subjectId}
          onMemory={replaceMemory}
          onDone={(m) => {
            setRemembering(false);
            if (m) setSelected(m.id);
          }}
        />
      ) : null}
      <form class="toolbar filters" onSubmit={(e) => e.preventDefault()} aria-label="Timeline filters">
        <label>
          Kind
          <select name="kind" value={filters.kind} onChange={(e) => set({ kind: e.currentTarget.value })}>
            <option value="">all</option>
            <option value="episode">episodes</option>
            {f.kinds.map((k) => (
              <option value={k} key={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" value={filters.status} onChange={(e) => set({ status: e.currentTarget.value })}>
            <option value="">all</option>
            {['active', 'superseded', 'tombstoned'].map((s) => (
              <option value={s} key={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Session
          <select name="session" value={filters.session} onChange={(e) => set({ session: e.currentTarget.value })}>
            <option value="">all</option>
            {f.sessions.map((s) => (
              <option value={s} key={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Text
          <input type="search" name="text" value={filters.text} onInput={(e) => set({ text: e.currentTarget.value })} />
        </label>
        <label>
          Labels
          <input type="search" name="labels" value={filters.labels} placeholder="e.g. pii" onInput={(e) => set({ labels: e.currentTarget.value })} />
        </label>
        <label>
          As of (your time)
          <input type="datetime-local" name="as_of" step={1} value={asOf} onChange={(e) => setAsOf(e.currentTarget.value)} />
        </label>
        {asOf ? (
          <button type="button" onClick={() => setAsOf('')}>
            Now
          </button>
        ) : null}
      </form>
      {error ? <ErrorView error={error} /> : null}
      {loading && items.length === 0 && !error ? <Loading what="the timeline" /> : null}
      {!loading && !error && episodes.length + memories.length === 0 ? <Empty>Nothing is stored for this subject.</Empty> : null}
      {!loading && episodes.length + memories.length > 0 && items.length === 0 ? <Empty>No item matches these filters.</Empty> : null}
      <div class="split">
        {items.length > 0 ? (
          <VirtualList
            label="Timeline"
            items={items}
            rowHeight={narrow ? NARROW_ROW_HEIGHT : ROW_HEIGHT}
            height={narrow ? 480 : 560}
            render={(item) => <TimelineRow item={item} selected={(item.type === 'memory' ? item.memory.id : item.episode.id) === selected} onSelect={(i) => setSelected(i.type === 'memory' ? i.memory.id : i.episode.id)} />}
          />
        ) : (
          <div />
        )}
        {current ? <Detail session={session} item={current} memories={memories} episodes={episodes} onSelect={setSelected} onMemory={replaceMemory} /> : null}
      </div>
      <SupportPanel session={session} subjectId={subjectId} sessions={f.sessions} />
    </main>
  );
}

function Detail({
  session,
  item,
  memories,
  episodes,
  onSelect,
  onMemory,
}: {
  session: Session;
  item: TimelineItem;
  memories: Memory[];
  episodes: Episode[];
  onSelect: (id: string) => void;
  onMemory: (m: Memory) => void;
}) {
  const link = (id: string) => (
    <button type="button" class="link" onClick={() => onSelect(id)} key={id}>
      {id.slice(0, 8)}
    </button>
  );
  if (item.type === 'episode') {
    const e = item.episode;
    const derived = memories.filter((m) => m.source_episode_ids.includes(e.id));
    return (
      <aside class="detail" aria-label="Episode detail">
        <h2>Episode</h2>
        <dl>
          <dt>id</dt>
          <dd>
            <code>{e.id}</code>
          </dd>
          <dt>time</dt>
          <dd>{formatTime(e.created_at)}</dd>
          <dt>session</dt>
          <dd>{e.session_id ?? '—'}</dd>
          <dt>source · type</dt>
          <dd>
            {e.source} · {e.type}
          </dd>
          <dt>memories from it</dt>
          <dd>{derived.length ? derived.map((m) => link(m.id)) : 'none yet'}</dd>
        </dl>
        <p class="content">{episodeText(e)}</p>
        <pre class="details">{JSON.stringify(e.payload, null, 2)}</pre>
      </aside>
    );
  }
  const m = item.memory;
  const v = versionsOf(m, memories);
  const sources = m.source_episode_ids.map((id) => episodes.find((e) => e.id === id));
  return (
    <aside class="detail" aria-label="Memory detail">
      <h2>
        Memory <span class={`pill status-${m.status}`} data-testid="memory-status">{m.status}</span>
      </h2>
      <p class="content">{m.content || '(content erased)'}</p>
      <dl>
        <dt>id</dt>
        <dd>
          <code>{m.id}</code>
        </dd>
        <dt>kind · origin</dt>
        <dd>
          {m.kind} · {m.origin ?? 'compiled'}
        </dd>
        <dt>valid</dt>
        <dd>
          {formatTime(m.valid_from)} → {m.valid_to ? formatTime(m.valid_to) : 'now'}
        </dd>
        <dt>confidence</dt>
        <dd>{m.confidence}</dd>
        <dt>labels</dt>
        <dd>{m.sensitivity_labels?.length ? m.sensitivity_labels.join(', ') : 'none'}</dd>
        <dt>source episodes</dt>
        <dd>
          {sources.length === 0
            ? 'none (written through the API)'
            : sources.map((e, i) => (
                <div key={m.source_episode_ids[i]}>
                  {link(m.source_episode_ids[i]!)} {e ? <span class="muted">{episodeText(e).slice(0, 80)}</span> : <span class="muted">(not loaded)</span>}
                </div>
              ))}
        </dd>
        <dt>replaced</dt>
        <dd>{v.supersedes.length ? v.supersedes.map(link) : 'none'}</dd>
        <dt>replaced by</dt>
        <dd>{v.supersededBy.length ? v.supersededBy.map(link) : 'none'}</dd>
      </dl>
      <MemoryActions session={session} memory={m} onMemory={onMemory} onSelect={onSelect} />
    </aside>
  );
}

function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const on = () => setMatches(list.matches);
    list.addEventListener('change', on);
    return () => list.removeEventListener('change', on);
  }, [query]);
  return matches;
}
