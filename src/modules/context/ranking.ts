/**
 * Scoring and candidate selection for POST /v1/context.
 *
 * The contract fixes the composite score: kind priority (3–10) + recency (0–5) + task relevance
 * (0–5 text, 0–8 semantic) + temporal validity (+3 / −4). It does not fix which items compete
 * for the budget; `selectCandidates` uses that room so that the +10 of a profile fact cannot
 * fill the bundle with facts unrelated to the task.
 */
import { analyze } from 'src/common/text/terms';
import { oneLine } from 'src/common/text/one-line';
import {
  bm25TermScores,
  computeCorpusStats,
  CorpusStats,
  semanticRelevance,
  TEXT_RELEVANCE_MAX,
  SEMANTIC_RELEVANCE_MAX,
  textRelevance,
} from './relevance';
import { standingReason } from './standing';
import { namedSpeakers } from './speakers';
import type { WordVectors } from 'src/common/text/word-vectors';
import { neighbourExpansion } from './expansion';

export type ContextLabel = 'profile_fact' | 'procedure' | 'episode_summary' | 'raw_episode';

export interface ContextCandidate {
  id: string;
  label: ContextLabel;
  text: string;
  created_at: Date;
  valid_to: Date | null;
  session_id: string | null;
  source_episode_ids: string[];
  /**
   * Order among items sharing one `created_at` (episodes of one batch share their transaction's
   * time; the database's insertion sequence keeps them in conversation order).
   */
  seq?: number;
  /**
   * When the interaction happened as the client recorded it (an episode's `payload.date`),
   * rendered instead of `created_at` (packing.ts) and matched against the task's words.
   */
  date_label?: string | null;
  /**
   * The same client date, for any item, when it is a machine-readable date (`recordedAt`): the
   * item's own `payload.date`, or its first source episode's for a memory. Recency and the
   * newer-first tie-break place the item by it instead of `created_at` (see `timeOf`).
   */
  recorded_at?: Date | null;
  /** Cosine similarity in [-1, 1] between task and item embeddings, when embeddings are on. */
  semantic_similarity?: number | null;
  /**
   * Roles speaking in the item as the client sent them ("Caroline", "user"; speakers.ts,
   * `candidateSpeakers`): a raw episode's message roles, a summary's `metadata.roles`, the
   * `metadata.speaker` of a fact or procedure. The named ones are a field of the text's score
   * (`fieldScores`) and keep a fact out of the standing share (standing.ts).
   */
  speakers?: readonly string[] | null;
}

export interface ScoredCandidate extends ContextCandidate {
  score: number;
  signals: { kind: number; recency: number; relevance: number; validity: number };
}

/**
 * Memory kinds outside the contract's ranking labels (`artifact_ref`) have no section in the
 * bundle and no kind priority: they are not candidates.
 */
export const MEMORY_LABELS: ReadonlySet<string> = new Set<ContextLabel>(['profile_fact', 'procedure', 'episode_summary']);

export const KIND_PRIORITY: Readonly<Record<ContextLabel, number>> = {
  profile_fact: 10,
  procedure: 8,
  episode_summary: 5,
  raw_episode: 3,
};

const RECENCY_MAX = 5;
/** How far the requested session's items sit above the newest item from elsewhere. */
const SESSION_RECENCY_LEAD = 1;
const VALIDITY_VALID = 3;
const VALIDITY_EXPIRED = -4;

/**
 * Share of a neighbouring turn's lexical score that an episode inherits. In a conversation the
 * answer often sits next to the turn that shares the task's words ("Where did you go?" — "To the
 * lake."), so an episode adjacent to a strong match is itself likely to be needed. On LoCoMo
 * this lifts evidence recall at 1,000 tokens from 67.5% to 74.6% (single-hop from 73% to 84%).
 */
const NEIGHBOUR_SHARE = 0.4;

export interface ScoreOptions {
  now: Date;
  /** Items of this session rank higher (compat.md): they count as the most recent. */
  sessionId?: string | null;
  /** Subject-wide document frequencies; computed from the candidates when absent. */
  stats?: CorpusStats;
  /**
   * Static word vectors: the task's words are then expanded with their nearest candidate words
   * (expansion.ts) in the text's BM25 score. Without them ranking uses the task's words alone.
   */
  wordVectors?: WordVectors | null;
}

/** An ISO-8601 date, optionally with a time and zone: `2026-01-14`, `2026-01-14T09:30:00Z`. */
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * When a client's date label says the interaction happened, if it is an ISO-8601 date or
 * date-time (a date alone is its day's start, a time without zone is UTC); null for anything
 * else. Free text ("1:56 pm on 8 May, 2023", "yesterday") is shown and matched as it is but
 * not placed in time: guessing at it would misplace items.
 */
export function recordedAt(label: string | null | undefined): Date | null {
  const m = typeof label === 'string' ? ISO_DATE.exec(label.trim()) : null;
  if (m === null) return null;
  const [, day, time, zone] = m;
  // A day that does not exist (2026-02-30) would roll over into the next month.
  const start = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) return null;
  if (time === undefined) return start;
  const offset = zone === undefined ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const at = new Date(`${day}T${time}${offset}`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * Where an item sits in time for recency: when the client says it happened (`recorded_at`),
 * else when the service stored it. The bundle shows an episode under its client date
 * (packing.ts), so ranking places it by the same date: a history imported or sent in one batch
 * shares one `created_at`, and only the client's dates tell its last message from its first.
 */
export function timeOf(c: ContextCandidate): number {
  return (c.recorded_at ?? c.created_at).getTime();
}

/**
 * Score desc, then newer first, then text, then id: identical input always gives identical order,
 * and items differing only in their random ids keep one order across stores.
 */
export function compareScored(a: ScoredCandidate, b: ScoredCandidate): number {
  return (
    b.score - a.score ||
    timeOf(b) - timeOf(a) ||
    (b.seq ?? 0) - (a.seq ?? 0) ||
    (a.text < b.text ? -1 : a.text > b.text ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

export function scoreCandidates(
  task: string,
  candidates: readonly ContextCandidate[],
  opts: ScoreOptions,
): ScoredCandidate[] {
  // Each text analysed once (the analysis cache answers a repeated text): BM25 and the
  // expansion read the same terms.
  const taskTerms = analyze(task);
  const terms = candidates.map((c) => analyze(c.text));
  const expansion = opts.wordVectors ? neighbourExpansion(taskTerms, terms, opts.wordVectors) : undefined;
  const textScores = bm25TermScores(taskTerms, terms, opts.stats, expansion);
  const dateScores = fieldScores(taskTerms, candidates.map((c) => c.date_label ?? ''));
  const speakerScores = fieldScores(taskTerms, candidates.map((c) => namedSpeakers(c.speakers).join(' ')));
  const ownScores = textScores.map((score, i) => score + dateScores[i] + speakerScores[i]);
  const lexical = withConversationContext(candidates, ownScores);
  const bestLexical = lexical.reduce((best, x) => Math.max(best, x), 0);
  const recency = recencySignals(candidates, opts.sessionId ?? null);
  const now = opts.now.getTime();

  const scored = candidates.map((c, i): ScoredCandidate => {
    const text = textRelevance(lexical[i], bestLexical);
    const relevance =
      typeof c.semantic_similarity === 'number' ? semanticRelevance(c.semantic_similarity, text) : text;
    const valid = c.valid_to === null || c.valid_to.getTime() > now;
    const validity = valid ? VALIDITY_VALID : VALIDITY_EXPIRED;
    const kind = KIND_PRIORITY[c.label];
    // Every field named, not spread: a spread of candidates built in different places copied
    // them generically into objects of many hidden classes, and every later step (dedupe,
    // selection, packing) then ran polymorphic. One shape here took ranking through packing
    // from 17.7 to 12.4 ms for 600 candidates, same output (bench/README.md, round 8). The
    // mapped type makes a field added to ContextCandidate but not copied here a type error.
    const scoredCandidate: { [K in keyof Required<ContextCandidate>]: ContextCandidate[K] } & Omit<ScoredCandidate, keyof ContextCandidate> = {
      id: c.id,
      label: c.label,
      text: c.text,
      created_at: c.created_at,
      valid_to: c.valid_to,
      session_id: c.session_id,
      source_episode_ids: c.source_episode_ids,
      seq: c.seq,
      date_label: c.date_label,
      recorded_at: c.recorded_at,
      semantic_similarity: c.semantic_similarity,
      speakers: c.speakers,
      score: kind + recency[i] + relevance + validity,
      signals: { kind, recency: recency[i], relevance, validity },
    };
    return scoredCandidate;
  });
  return scored.sort(compareScored);
}

/**
 * A field of an item beside its text, scored by BM25 over the candidates' values of that field
 * (their own rarity) and added to the text's score at equal weight. Kept apart from the text so
 * that a field's words neither lengthen a turn nor count among its words' frequencies. Many items
 * share one value, so each distinct value is scored once. Two fields:
 *
 * - The date an item is shown under is part of what the bundle says about it, so a task that
 *   names when ("… on October 13, 2023?", "… camping in June?") matches the client's date label
 *   (the year most share weighs little, a day weighs much). On LoCoMo (bench/README.md, round 4)
 *   evidence recall at 1,000 tokens rose 76.9% -> 78.6% offline, no conversation down; no SQL
 *   branch: fetching a named date's episodes as well recalled less.
 * - Who speaks (speakers.ts): "What pets does Nate have?" is answered in Nate's own turns ("I
 *   just got a new addition to the family, this is Max!"), while the text field counts "Nate" in
 *   every turn that addresses him too. The named speakers of an item are its value; in a chat
 *   between two people a name is half the values, so it weighs a little, like a year. On LoCoMo
 *   (round 6) evidence recall rose 72.4 / 81.3 / 86.2% -> 72.9 / 82.4 / 87.0% at 500 / 1,000 /
 *   2,000 tokens offline, multi-hop most, every conversation up at 1,000 and 2,000; support
 *   conversations name nobody (`user`, `assistant`) and rank as before.
 */
function fieldScores(taskTerms: readonly string[], labels: readonly string[]): number[] {
  if (labels.every((label) => label === '')) return labels.map(() => 0);
  // Statistics over every candidate's label, each distinct value analysed once with its count.
  const copies = new Map<string, number>();
  for (const label of labels) copies.set(label, (copies.get(label) ?? 0) + 1);
  const distinct = [...copies.keys()];
  const distinctTerms = distinct.map(analyze);
  const stats = computeCorpusStats(distinctTerms, [...copies.values()]);
  const scores = bm25TermScores(taskTerms, distinctTerms, stats);
  const byLabel = new Map(distinct.map((label, i) => [label, scores[i]]));
  return labels.map((label) => byLabel.get(label)!);
}

/**
 * Recency on 0–5, linear in time (`timeOf`: the client's ISO date when it gave one, else
 * `created_at`) from the oldest candidate (0) to the newest (5); when all share one instant, all
 * are newest. With a requested session that has items, those items are the
 * conversation happening now: they get 5, and every other item is placed linearly on 0–4, so a
 * session item outranks any otherwise equal item from elsewhere (compat.md: "items of that
 * session rank higher") without leaving the contract's range.
 */
function recencySignals(candidates: readonly ContextCandidate[], sessionId: string | null): number[] {
  const inSession = candidates.map((c) => sessionId !== null && c.session_id === sessionId);
  const sessionPresent = inSession.includes(true);
  const top = sessionPresent ? RECENCY_MAX - SESSION_RECENCY_LEAD : RECENCY_MAX;
  let oldest = Infinity;
  let newest = -Infinity;
  candidates.forEach((c, i) => {
    if (inSession[i]) return;
    oldest = Math.min(oldest, timeOf(c));
    newest = Math.max(newest, timeOf(c));
  });
  const span = newest - oldest;
  return candidates.map((c, i) => {
    if (inSession[i]) return RECENCY_MAX;
    return span > 0 ? (top * (timeOf(c) - oldest)) / span : top;
  });
}

/**
 * Adds to each episode (raw or summarised) a share of the best lexical score of its neighbours
 * in the same session: the episodes directly before and after it, and the same speaker's own
 * turns across one reply (A, B, A: the two A turns). A speaker carries a topic on over the other's
 * reply ("I started a new job." — "Congrats!" — "It's at the counseling centre, …"), so a turn
 * that continues a strong match is likely needed as much as the reply beside it. Roles come from
 * the data (`speakers`); an episode whose roles are unknown has only its adjacent neighbours,
 * and a speaker's consecutive turns are adjacent already. On LoCoMo (bench/README.md, round 11)
 * evidence recall rose 72.9 / 82.4 / 87.0% -> 75.5 / 84.2 / 88.9% at 500 / 1,000 / 2,000 tokens
 * offline, every category and every conversation up at every budget, with the share unchanged.
 * Facts and procedures stand on their own.
 */
function withConversationContext(candidates: readonly ContextCandidate[], lexical: number[]): number[] {
  const bySession = new Map<string, number[]>();
  candidates.forEach((c, i) => {
    if (c.session_id === null || (c.label !== 'raw_episode' && c.label !== 'episode_summary')) return;
    const key = `${c.label}\u0000${c.session_id}`;
    const members = bySession.get(key) ?? [];
    members.push(i);
    bySession.set(key, members);
  });
  const result = [...lexical];
  for (const members of bySession.values()) {
    const time = (i: number): number => candidates[i].created_at.getTime();
    members.sort((a, b) => time(a) - time(b) || (candidates[a].seq ?? 0) - (candidates[b].seq ?? 0) || a - b);
    const roles = members.map((i) => (candidates[i].speakers ?? []).join('\u0000'));
    // The same speaker's turn two places away in `direction` (-1 earlier, +1 later), with someone
    // else's turn between.
    const acrossReply = (k: number, direction: -1 | 1): number => {
      const reply = k + direction;
      const other = k + 2 * direction;
      const same = other >= 0 && other < members.length && roles[k] !== '' && roles[other] === roles[k] && roles[reply] !== roles[k];
      return same ? lexical[members[other]] : 0;
    };
    members.forEach((index, k) => {
      const before = k > 0 ? lexical[members[k - 1]] : 0;
      const after = k + 1 < members.length ? lexical[members[k + 1]] : 0;
      result[index] += NEIGHBOUR_SHARE * Math.max(before, after, acrossReply(k, -1), acrossReply(k, 1));
    });
  }
  return result;
}

/**
 * One copy of each text: the compiler writes an `episode_summary` per conversation episode, and
 * for a short episode the summary repeats it (`role: text`), so a bundle holding both would
 * spend its budget twice on the same words. Walking best first, a raw episode already covered
 * by a better-ranked summary is dropped, and so is a summary whose source episodes are all
 * already in as raw episodes. A memory whose text a better-ranked memory already says is dropped
 * too. Input and output are in score order.
 */
export function dropDuplicates(ranked: readonly ScoredCandidate[]): ScoredCandidate[] {
  const covered = new Set<string>();
  const said = new Set<string>();
  return ranked.filter((c) => {
    // The same memory text twice (a fact restated in two subjects' copies, an import beside its
    // original, a summary equal to a fact) says nothing the first did not.
    if (c.label !== 'raw_episode') {
      const key = sameText(c.text);
      if (said.has(key)) return false;
      said.add(key);
    }
    if (c.label === 'raw_episode') {
      if (covered.has(c.id)) return false;
      covered.add(c.id);
      return true;
    }
    if (c.label !== 'episode_summary' || c.source_episode_ids.length === 0) return true;
    if (c.source_episode_ids.every((id) => covered.has(id))) return false;
    c.source_episode_ids.forEach((id) => covered.add(id));
    return true;
  });
}

/** Text compared for sameness: case, spacing and closing punctuation do not make a new fact. */
function sameText(text: string): string {
  const folded = oneLine(text.toLowerCase());
  return CLOSING_PUNCTUATION.has(folded[folded.length - 1]) ? folded.replace(/[.!?…]+$/u, '') : folded;
}

const CLOSING_PUNCTUATION: ReadonlySet<string | undefined> = new Set(['.', '!', '?', '…']);

export interface SelectOptions {
  maxTokens: number;
  sessionId?: string | null;
}

/**
 * Share of the budget that standing items (standing.ts: profile facts, a customer's stated
 * preferences, ticket references) may take before relevance competes, best scored first. A cap,
 * not a reservation: what they leave goes to the rest. A fifth of 800 tokens holds four or five
 * such lines, what a support agent needs about the customer beside the task's own matches.
 */
const STANDING_SHARE = 0.2;

/**
 * An item less relevant than this share of its scale is not selected for relevance: it keeps
 * out items that only share a common word with the task, yet leaves room for the weaker matches
 * that multi-part questions need. Such items still fill the room the relevant ones leave.
 */
const MIN_RELEVANCE_SHARE = 0.1;

/**
 * The relevance-selected part holds about the budget in estimated tokens, so relevance decides
 * what is in the bundle and the composite score mostly decides the order and the margin.
 * Ordering everything by the composite score instead lets recency (worth as much as relevance,
 * 0–5) push out older items the task is about: on LoCoMo a pool of 1.25× the budget lost 3
 * points of evidence recall and 2× lost 8.
 */
const POOL_BUDGET_FACTOR = 1;

/** Share of the pool the current session may take before relevance-selected items get theirs. */
const SESSION_POOL_SHARE = 0.5;

/** Bullet, date and separators of a rendered line; see packing.ts. */
const LINE_OVERHEAD_TOKENS = 12;

/** Rough cl100k size without running the tokenizer: English averages about four characters a token. */
function estimateTokens(c: ContextCandidate): number {
  return Math.ceil(c.text.length / 4) + LINE_OVERHEAD_TOKENS;
}

function relevanceShare(c: ScoredCandidate): number {
  const max = typeof c.semantic_similarity === 'number' ? SEMANTIC_RELEVANCE_MAX : TEXT_RELEVANCE_MAX;
  return c.signals.relevance / max;
}

/**
 * Every candidate, in packing order (input must be the output of `scoreCandidates`). Relevance
 * orders the candidates; it never excludes them (compat.md: "Context fills its budget"):
 * 1. standing items (standing.ts), best scored first, within their share of the budget;
 * 2. the current session's latest items, within their share;
 * 3. the items relevant to the task, most relevant first, until about the budget is spoken for;
 * 4. everything else by composite score, so that a large budget or a generic task ("summarize")
 *    is filled with the best remaining items, uncompiled episodes included.
 * The session's items come first, then the standing ones, then those selected for relevance in
 * composite order, then the rest.
 * Packing (packing.ts) walks this order and takes what fits.
 */
export function selectCandidates(
  ranked: readonly ScoredCandidate[],
  opts: SelectOptions,
): ScoredCandidate[] {
  const allowance = POOL_BUDGET_FACTOR * opts.maxTokens;
  const taken = new Set<ScoredCandidate>();
  const live = new Set<ScoredCandidate>();
  const standing = new Set<ScoredCandidate>();
  let used = 0;
  const admit = (c: ScoredCandidate): void => {
    taken.add(c);
    used += estimateTokens(c);
  };

  const standingCap = STANDING_SHARE * allowance;
  for (const c of ranked) {
    if (c.signals.validity <= 0 || standingReason(c.label, c.text, c.speakers) === null) continue;
    if (used + estimateTokens(c) > standingCap) continue;
    admit(c);
    standing.add(c);
  }

  if (opts.sessionId != null) {
    // The live conversation's latest turns matter most, whatever their words.
    const session = ranked
      .filter((c) => c.session_id === opts.sessionId && !taken.has(c))
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (b.seq ?? 0) - (a.seq ?? 0) || compareScored(a, b));
    const sessionCap = used + SESSION_POOL_SHARE * allowance;
    for (const c of session) {
      if (used + estimateTokens(c) > sessionCap) break;
      admit(c);
      live.add(c);
    }
  }

  const byRelevance = ranked
    .filter((c) => !taken.has(c) && relevanceShare(c) >= MIN_RELEVANCE_SHARE)
    .sort((a, b) => relevanceShare(b) - relevanceShare(a) || compareScored(a, b));
  for (const c of byRelevance) {
    if (used >= allowance) break;
    admit(c);
  }
  // The session's admitted turns are packed first: a close text match must not push the
  // conversation happening now out of the bundle (compat.md: "items of that session rank
  // higher"). Standing items next, so that their share holds whatever the matches cost.
  return [
    ...ranked.filter((c) => live.has(c)),
    ...ranked.filter((c) => standing.has(c)),
    ...ranked.filter((c) => taken.has(c) && !live.has(c) && !standing.has(c)),
    // What the estimate left room for goes to the next most relevant items first.
    ...byRelevance.filter((c) => !taken.has(c)),
    ...ranked.filter((c) => !taken.has(c) && relevanceShare(c) < MIN_RELEVANCE_SHARE),
  ];
}
