/**
 * The handoff pack of POST /v1/handoff: what a human or a next agent needs to take over a
 * customer's session, as structured fields and as a markdown brief (`handoff_notes`).
 *
 * - Deterministic: identical inputs give identical output, and apart from `generated_at` nothing
 *   depends on `now` directly (only through the health result the caller passes), so two
 *   identical requests a moment apart give the same `handoff_notes` and `active_issue`.
 * - Budget: `token_estimate` = countTokens(handoff_notes) <= maxTokens, always. The notes are
 *   what goes into a prompt; the structured fields are bounded by item caps instead.
 */
import { countTokens, truncateToTokens } from 'src/common/text/tokenizer';
import {
  buildSessions,
  chronological,
  compareStrings,
  customerMessages,
  isOpenStatus,
  resolvedAtOf,
  speakerLines,
  type SupportSession,
} from './sessions';
import type {
  HandoffPack,
  HealthResult,
  HealthState,
  ProcedureMemory,
  ProfileFact,
  ResolutionHistoryItem,
  ResolutionRecord,
  SupportEpisode,
} from './support.types';

export interface HandoffInput {
  subjectId: string;
  sessionId: string;
  reason: string;
  /** 1–16000 (compat.md); validated by the DTO. */
  maxTokens: number;
  now: Date;
  /** All episodes of the subject. */
  episodes: readonly SupportEpisode[];
  resolutions: readonly ResolutionRecord[];
  /** Active profile facts. */
  facts: readonly ProfileFact[];
  /** Active procedures: the steps already worked out with this customer. */
  procedures: readonly ProcedureMemory[];
  /** Null renders as unknown health. */
  health: HealthResult | null;
}

// Item caps keep the structured fields bounded whatever the history size; token caps per item
// keep one long message from taking the whole brief.
const OPENING_TOKENS = 80;
const LATEST_TOKENS = 60;
const MAX_AGENT_STEPS = 10;
const MAX_PROCEDURES = 5;
const STEP_TOKENS = 60;
const MAX_KEY_FACTS = 20;
const FACT_TOKENS = 60;
const MAX_RESOLUTION_HISTORY = 20;
const RECENT_CONTEXT_EPISODES = 10;
const CONTEXT_TOKENS = 60;
const MAX_HEALTH_FACTORS = 3;
const MAX_OPEN_LISTED = 10;
const MAX_RESOLVED_LISTED = 5;
const LIST_SNIPPET_TOKENS = 30;
const CHARS_PER_TOKEN_BOUND = 16;

const HEALTH_BADGE: Readonly<Record<HealthState, string>> = { at_risk: '🔴', watch: '🟡', healthy: '🟢' };
const CUT_MARKER = '\n\n_(cut to the token budget)_';
/** Below this many tokens of brief the marker would outweigh what it marks. */
const MIN_TOKENS_FOR_MARKER = 24;

export function buildHandoff(input: HandoffInput): HandoffPack {
  const sessions = buildSessions(input.episodes, input.resolutions);
  const session = sessions.find((s) => s.session_id === input.sessionId) ?? null;
  const open = sessions.filter((s) => isOpenStatus(s.status));
  const resolved = sessions
    .filter(isResolved)
    .sort((a, b) => b.resolved_at.getTime() - a.resolved_at.getTime() || compareStrings(a.session_id, b.session_id));

  const issue = activeIssue(input.sessionId, session);
  const steps = attemptedSteps(session, input.procedures);
  const facts = [...input.facts].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || compareStrings(a.id, b.id)).slice(0, MAX_KEY_FACTS);
  const history = [...input.resolutions]
    .sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || compareStrings(a.session_id, b.session_id))
    .slice(0, MAX_RESOLUTION_HISTORY);
  const context = chronological(input.episodes).slice(-RECENT_CONTEXT_EPISODES);
  const health = input.health;
  const healthFactors = health ? health.factors.slice(0, MAX_HEALTH_FACTORS) : [];

  const healthSummary = health ? `health ${health.score}/100 (${health.state})` : 'health not computed';
  const customerSummary = `${input.subjectId}: ${sessions.length} support session(s), ${open.length} open, ${resolved.length} resolved; ${healthSummary}.`;
  const recentContext = context.map(
    (e) => `${e.created_at.toISOString()} [${inline(e.session_id ?? 'no session')}] (${inline(e.source)}) ${clip(e.text, CONTEXT_TOKENS)}`,
  );
  const resolutionHistory: ResolutionHistoryItem[] = history.map((r) => ({
    session_id: r.session_id,
    status: r.status,
    summary: r.resolution_summary ?? '',
    resolved_at: resolvedAtOf(r)?.toISOString() ?? null,
  }));

  const notes = renderNotes(input, { session, open, resolved, issue, steps, facts, context, healthFactors, });
  const handoffNotes = fitToBudget(notes, input.maxTokens);

  return {
    subject_id: input.subjectId,
    session_id: input.sessionId,
    reason: input.reason,
    generated_at: input.now.toISOString(),
    customer_summary: customerSummary,
    active_issue: issue.text,
    attempted_steps: steps.lines,
    key_facts: facts.map((f) => f.content),
    resolution_history: resolutionHistory,
    recent_context: recentContext,
    health_score: health ? health.score : null,
    health_state: health ? health.state : null,
    health_factors: healthFactors,
    handoff_notes: handoffNotes,
    token_estimate: countTokens(handoffNotes),
    provenance: {
      fact_ids: facts.map((f) => f.id),
      episode_ids: session ? session.episodes.filter((e) => issue.episodes.has(e) || steps.episodes.has(e)).map((e) => e.id) : [],
      resolution_ids: history.map((r) => r.id),
      context_episode_ids: context.map((e) => e.id),
    },
  };
}

interface NotesParts {
  session: SupportSession | null;
  open: SupportSession[];
  resolved: (SupportSession & { resolved_at: Date })[];
  issue: { text: string; episodes: Set<SupportEpisode> };
  steps: { lines: string[]; episodes: Set<SupportEpisode>; quoted: string[] };
  facts: ProfileFact[];
  context: SupportEpisode[];
  healthFactors: HealthResult['factors'];
}

/**
 * The markdown brief. It summarises, so it must come out short (compat.md: under twice the raw
 * conversation text): every customer or agent line appears at most once — in the active issue,
 * an open issue's opening message, an attempted step, or else in Recent Context; a resolved
 * session with a summary is told by its summary; key facts already readable in a quoted line
 * are not repeated; timestamps are days or minutes; health is its badge and what pulls the
 * score down; and sections with nothing to say are left out, except the three compat.md names
 * (Active Issue, Open Issues, Previously Resolved), which say `none`.
 */
function renderNotes(input: HandoffInput, p: NotesParts): string {
  const shown = new Set<string>();
  const quote = (text: string): string => (shown.add(normalized(text)), text);
  const isShown = (text: string): boolean => shown.has(normalized(text));
  const health = input.health;

  // A customer message is the customer's lines of one episode; each line counts as shown.
  const quoteCustomer = (episode: SupportEpisode): void => {
    for (const l of speakerLines(episode)) if (l.speaker === 'customer') quote(l.text);
  };
  const issueText = p.issue.text;
  for (const episode of p.issue.episodes) quoteCustomer(episode);
  const openLines = listOrNone(p.open, (s) => {
    const opening = customerMessages(s)[0];
    const fresh = opening && !isShown(opening.text) && !p.issue.episodes.has(opening.episode);
    if (fresh) quoteCustomer(opening.episode);
    const snippet = fresh ? ` — ${clip(opening.text, LIST_SNIPPET_TOKENS)}` : s === p.session ? ' — this session' : '';
    // `unknown` (no resolution record yet) is the usual case and says nothing to a reader.
    const status = s.status === 'unknown' ? '' : `${s.status}, `;
    return `\`${inline(s.session_id)}\` (${status}since ${day(s.first_message_at)})${snippet}`;
  }, MAX_OPEN_LISTED);
  const resolvedLines = listOrNone(p.resolved, (s) => {
    const summary = s.resolution?.resolution_summary;
    return `\`${inline(s.session_id)}\` (${day(s.resolved_at)}) — ${summary ? clip(summary, LIST_SNIPPET_TOKENS) : 'no summary'}`;
  }, MAX_RESOLVED_LISTED);
  for (const text of p.steps.quoted) quote(text);

  // A resolved session with a summary is told by that summary; its lines are not repeated.
  const summarized = new Set(p.resolved.filter((s) => s.resolution?.resolution_summary).map((s) => s.session_id));
  const recent: string[] = [];
  for (const episode of p.context) {
    if (episode.session_id !== null && summarized.has(episode.session_id)) continue;
    const lines = speakerLines(episode).filter((l) => !isShown(l.text));
    if (lines.length === 0) continue;
    const said = lines.map((l) => `${l.role}: ${l.text}`).join(' ');
    for (const l of lines) quote(l.text);
    recent.push(`${minute(episode.created_at)} [${inline(episode.session_id ?? 'no session')}] ${clip(said, CONTEXT_TOKENS)}`);
  }
  const everything = [...shown].join('\n');
  const seenFacts = new Set<string>();
  const facts = p.facts.filter((f) => {
    const key = normalized(f.content);
    if (seenFacts.has(key) || everything.includes(key)) return false;
    seenFacts.add(key);
    return true;
  });

  // What pulls the score down is what the next agent must know; the details are in health_factors.
  const signals = p.healthFactors.filter((f) => f.impact < 0).map((f) => `${f.signal} ${f.impact}`).join(', ');
  const healthLine = health
    ? `${HEALTH_BADGE[health.state]} **Health: ${health.state.toUpperCase()}** (score ${health.score}/100)${signals ? ` — ${signals}` : ''}`
    : '⚪ **Health: UNKNOWN** (not computed)';
  const section = (title: string, lines: string[]): string[] => (lines.length === 0 ? [] : ['', `## ${title}`, ...lines.map((l) => `- ${l}`)]);
  const render = (recentLines: string[]): string => [
    `# Handoff Brief — ${input.subjectId}`,
    '',
    healthLine,
    `**Session:** \`${inline(input.sessionId)}\` (${p.session ? p.session.status : 'unknown'}) · **Reason:** ${clip(input.reason, STEP_TOKENS)}`,
    '',
    '## Active Issue',
    issueText,
    '',
    '## Open Issues',
    ...openLines,
    '',
    '## Previously Resolved',
    ...resolvedLines,
    ...section('Attempted Steps', p.steps.lines),
    ...section('Key Facts', facts.map((f) => clip(f.content, FACT_TOKENS))),
    ...section('Recent Context', recentLines),
  ].join('\n');
  // Recent Context is the part that repeats the conversation itself: on a short history, its
  // oldest lines give way until the brief is under twice the text it covers (recent_context
  // keeps them all). What the sections above say is never dropped for it.
  const covered = input.episodes.reduce((n, e) => n + e.text.length, 0);
  let kept = recent;
  let notes = render(kept);
  while (kept.length > 0 && notes.length >= 2 * covered) {
    kept = kept.slice(1);
    notes = render(kept);
  }
  return notes;
}

/** What "the same words" means when the brief decides whether a line is already shown. */
function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** `2025-04-01 09:02` (UTC): a brief needs the minute, not the millisecond. */
function minute(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** `2025-04-01` (UTC), for when a session opened or was resolved. */
function day(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The customer's opening message of the session, and their latest one when they wrote again
 * (what they want now may have moved on). Without customer words the first episode stands in.
 */
function activeIssue(sessionId: string, session: SupportSession | null): { text: string; episodes: Set<SupportEpisode> } {
  const messages = session ? customerMessages(session) : [];
  const first = messages[0];
  const last = messages[messages.length - 1];
  if (first && last) {
    const text = first === last ? clip(first.text, OPENING_TOKENS) : `${clip(first.text, OPENING_TOKENS)} — latest: ${clip(last.text, LATEST_TOKENS)}`;
    return { text, episodes: new Set([first.episode, last.episode]) };
  }
  const firstEpisode = session?.episodes[0];
  if (firstEpisode) return { text: clip(firstEpisode.text, OPENING_TOKENS), episodes: new Set([firstEpisode]) };
  return { text: `No messages recorded for session ${sessionId}.`, episodes: new Set() };
}

/** The agents' latest lines in the session, oldest first, then the newest procedures. */
function attemptedSteps(session: SupportSession | null, procedures: readonly ProcedureMemory[]): { lines: string[]; episodes: Set<SupportEpisode>; quoted: string[] } {
  const agentLines = (session ? session.episodes.flatMap(speakerLines) : []).filter((l) => l.speaker === 'agent').slice(-MAX_AGENT_STEPS);
  const newestProcedures = [...procedures]
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || compareStrings(a.id, b.id))
    .slice(0, MAX_PROCEDURES);
  return {
    lines: [
      ...agentLines.map((l) => `${l.role}: ${clip(l.text, STEP_TOKENS)}`),
      ...newestProcedures.map((p) => `procedure: ${clip(p.content, STEP_TOKENS)}`),
    ],
    episodes: new Set(agentLines.map((l) => l.episode)),
    quoted: agentLines.map((l) => l.text),
  };
}

/** Markdown list items, `- none` for an empty list, the overflow beyond `max` as a count. */
function listOrNone(items: readonly string[]): string[];
function listOrNone<T>(items: readonly T[], render: (item: T) => string, max: number): string[];
function listOrNone<T>(items: readonly T[], render: (item: T) => string = String, max = items.length): string[] {
  if (items.length === 0) return ['- none'];
  const lines = items.slice(0, max).map((item) => `- ${render(item)}`);
  if (items.length > max) lines.push(`- … and ${items.length - max} more`);
  return lines;
}

/** Client-given ids and sources are one line in the brief too. */
function inline(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/**
 * One line, so item text cannot open markdown structure of its own; cut to `maxTokens` plus an
 * ellipsis. A soft cap: the hard budget is `fitToBudget`'s.
 */
function clip(text: string, maxTokens: number): string {
  // Tokenizing costs more than linear time in the length of a run (BPE merges), and an episode
  // can be megabytes. Ordinary text averages about 4 characters a token, so the first
  // CHARS_PER_TOKEN_BOUND × maxTokens characters hold everything the clip can show.
  const bound = maxTokens * CHARS_PER_TOKEN_BOUND;
  // Never keep half of a surrogate pair the slice may have split.
  const line = text.slice(0, bound).replace(/[\uD800-\uDBFF]$/, '').replace(/\s+/g, ' ').trim();
  const cut = truncateToTokens(line, maxTokens);
  return cut === line && text.length <= bound ? line : `${cut.trimEnd()}…`;
}

/**
 * The notes as they are when they fit; otherwise their longest prefix that fits with the cut
 * marker, or without it when the budget is too small for both. Sections are written most
 * important first, so a prefix keeps what matters.
 */
export function fitToBudget(notes: string, maxTokens: number): string {
  if (countTokens(notes) <= maxTokens) return notes;
  const room = maxTokens - countTokens(CUT_MARKER);
  if (room >= MIN_TOKENS_FOR_MARKER) {
    const marked = truncateToTokens(notes, room).trimEnd() + CUT_MARKER;
    if (countTokens(marked) <= maxTokens) return marked;
  }
  return truncateToTokens(notes, maxTokens);
}

/** `resolved_at` is set exactly for resolved sessions (see `resolvedAtOf`). */
function isResolved(session: SupportSession): session is SupportSession & { resolved_at: Date } {
  return session.resolved_at !== null;
}
