import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session, SubjectList } from '../api.js';
import { Empty, ErrorView, Loading } from '../components/error-view.js';
import { href } from '../route.js';

const PAGE = 50;

/** Subjects with their counts, a page at a time (the API orders them by id). */
export function SubjectsPage({ session }: { session: Session }) {
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<SubjectList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [search, setSearch] = useState('');

  useEffect(() => {
    let live = true;
    setData(null);
    setError(null);
    api(session, (c) => c.listSubjects({ limit: PAGE, offset }))
      .then((d) => live && setData(d))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [session, offset]);

  const q = search.trim().toLowerCase();
  const rows = data?.subjects.filter((s) => !q || s.subject_id.toLowerCase().includes(q)) ?? [];
  return (
    <main>
      <h1>Subjects</h1>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (search.trim()) location.hash = href(['subjects', search.trim()]);
        }}
      >
        <label>
          Search
          <input type="search" name="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} placeholder="subject id" />
        </label>
        <button type="submit" disabled={!search.trim()}>
          Open subject
        </button>
      </form>
      {error ? <ErrorView error={error} /> : null}
      {!data && !error ? <Loading what="subjects" /> : null}
      {data && data.total === 0 ? <Empty>No subjects yet: ingest an episode (POST /v1/episodes) or remember a memory.</Empty> : null}
      {data && data.total > 0 ? (
        <>
          <table class="grid">
            <caption class="muted">
              {q ? `${rows.length} of this page's ${data.subjects.length} match; ` : ''}
              {data.total} subjects in all, {offset + 1}–{Math.min(offset + PAGE, data.total)} shown
            </caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col" class="num">Episodes</th>
                <th scope="col" class="num">Memories</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.subject_id}>
                  <td>
                    <a href={href(['subjects', s.subject_id])}>{s.subject_id}</a>
                  </td>
                  <td class="num">{s.episode_count}</td>
                  <td class="num">{s.memory_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Subject pages">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Previous
            </button>
            <button type="button" disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>
              Next
            </button>
          </nav>
        </>
      ) : null}
    </main>
  );
}
