import { useState } from 'preact/hooks';

export interface Candidate {
  id: string;
  source: 'memory' | 'episode';
  kind: string;
  text: string | null;
  created_at: string;
  session_id: string | null;
  in_session: boolean;
  score: number | null;
  components: { kind_priority: number; recency: number; relevance: number; validity: number } | null;
  included: boolean;
  reason: 'budget' | 'duplicate' | 'policy_denied' | 'no_section' | null;
  rank: number | null;
  pack_order: number | null;
  section: string | null;
  tokens: number | null;
  policy_rule_id: string | null;
  policy_action: 'denied' | 'would_deny' | null;
}

export interface SectionCost {
  heading: string;
  tokens: number;
  items: number;
}

/** Why an item is out, in words a reader of the table needs no API docs for. */
export const REASON_TEXT: Record<NonNullable<Candidate['reason']>, string> = {
  budget: 'left out: no room in the budget',
  duplicate: 'left out: a better-ranked item says the same',
  policy_denied: 'left out: denied by policy',
  no_section: 'left out: kind has no bundle section',
};

export function outcome(c: Candidate): string {
  if (c.included) return c.policy_action === 'would_deny' ? `included (policy ${c.policy_rule_id} would deny)` : 'included';
  const text = c.reason ? REASON_TEXT[c.reason] : 'left out';
  return c.reason === 'policy_denied' && c.policy_rule_id ? `${text} (${c.policy_rule_id})` : text;
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : Number.isInteger(n) ? String(n) : n.toFixed(2));

type Show = 'all' | 'included' | 'left_out';

/**
 * Every candidate with its score components (they add up to the score), in or out and why, and
 * the token cost of its line; ranked ones come best first as the API lists them.
 */
export function ScoreTable({ candidates }: { candidates: readonly Candidate[] }) {
  const [show, setShow] = useState<Show>('all');
  const rows = candidates.filter((c) => show === 'all' || (show === 'included') === c.included);
  const inCount = candidates.filter((c) => c.included).length;
  return (
    <section aria-label="Candidates">
      <h2>
        Candidates · {inCount} included, {candidates.length - inCount} left out
      </h2>
      <div class="toolbar" role="radiogroup" aria-label="Show">
        {(['all', 'included', 'left_out'] as Show[]).map((s) => (
          <label class="check" key={s}>
            <input type="radio" name="show" value={s} checked={show === s} onChange={() => setShow(s)} /> {s.replace('_', ' ')}
          </label>
        ))}
      </div>
      {rows.length === 0 ? (
        <p class="empty">No candidate here.</p>
      ) : (
        <div class="scores-wrap">
          <table class="grid scores">
            <thead>
              <tr>
                <th scope="col">Outcome</th>
                <th scope="col">Kind</th>
                <th scope="col" class="num">Score</th>
                <th scope="col" class="num" title="kind priority">Kind pr.</th>
                <th scope="col" class="num">Recency</th>
                <th scope="col" class="num">Relevance</th>
                <th scope="col" class="num">Validity</th>
                <th scope="col">Session</th>
                <th scope="col" class="num">Tokens</th>
                <th scope="col">Section</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={`${c.source}:${c.id}`} class={c.included ? 'in' : 'left-out'} data-id={c.id} data-reason={c.reason ?? 'included'}>
                  <td class={`reason-${c.reason ?? 'included'}`}>{outcome(c)}</td>
                  <td>{c.kind}</td>
                  <td class="num">{fmt(c.score)}</td>
                  <td class="num">{fmt(c.components?.kind_priority)}</td>
                  <td class="num">{fmt(c.components?.recency)}</td>
                  <td class="num">{fmt(c.components?.relevance)}</td>
                  <td class="num">{fmt(c.components?.validity)}</td>
                  <td>{c.in_session ? `boosted (${c.session_id})` : (c.session_id ?? '—')}</td>
                  <td class="num">{fmt(c.tokens)}</td>
                  <td>{c.section ?? '—'}</td>
                  <td class="text" title={c.text ?? undefined}>
                    {c.text ?? <em class="muted">withheld by policy</em>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Tokens per section of the bundle, and the total against the budget. */
export function SectionCosts({ sections, total, budget }: { sections: readonly SectionCost[]; total: number; budget: number }) {
  return (
    <table class="grid sections">
      <caption class="muted">
        {total} of {budget} tokens used
      </caption>
      <thead>
        <tr>
          <th scope="col">Section</th>
          <th scope="col" class="num">Items</th>
          <th scope="col" class="num">Tokens</th>
        </tr>
      </thead>
      <tbody>
        {sections.map((s) => (
          <tr key={s.heading}>
            <td>{s.heading}</td>
            <td class="num">{s.items}</td>
            <td class="num">{s.tokens}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
