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
const FACTOR_DETAIL_TOKENS = 60;
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

  const healthLine = health
    ? `${HEALTH_BADGE[health.state]} **Health: ${health.state.toUpperCase()}** (score ${health.score}/100)`
    : '⚪ **Health: UNKNOWN** (not computed)';
  const notes = [
    `# Handoff Brief — ${input.subjectId}`,
    '',
    healthLine,
    `**Session:** \`${inline(input.sessionId)}\` (${session ? session.status : 'unknown'}) · **Reason:** ${clip(input.reason, STEP_TOKENS)}`,
    `**Customer:** ${customerSummary}`,
    '',
    '## Active Issue',
    issue.text,
    '',
    '## Open Issues',
    ...listOrNone(open, (s) => {
      const opening = customerMessages(s)[0];
      const snippet = opening ? ` — ${clip(opening.text, LIST_SNIPPET_TOKENS)}` : '';
      return `\`${inline(s.session_id)}\` (${s.status}) since ${s.first_message_at.toISOString()}${snippet}`;
    }, MAX_OPEN_LISTED),
    '',
    '## Previously Resolved',
    ...listOrNone(resolved, (s) => {
      const summary = s.resolution?.resolution_summary;
      return `\`${inline(s.session_id)}\` resolved ${s.resolved_at.toISOString()} — ${summary ? clip(summary, LIST_SNIPPET_TOKENS) : 'no summary'}`;
    }, MAX_RESOLVED_LISTED),
    '',
    '## Attempted Steps',
    ...listOrNone(steps.lines),
    '',
    '## Key Facts',
    ...listOrNone(facts.map((f) => clip(f.content, FACT_TOKENS))),
    '',
    '## Health Factors',
    ...listOrNone(healthFactors.map((f) => `${f.signal} (${f.impact > 0 ? '+' : ''}${f.impact}): ${clip(f.detail, FACTOR_DETAIL_TOKENS)}`)),
    '',
    '## Recent Context',
    ...listOrNone(recentContext),
  ].join('\n');
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
function attemptedSteps(session: SupportSession | null, procedures: readonly ProcedureMemory[]): { lines: string[]; episodes: Set<SupportEpisode> } {
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
