/**
 * Customer health (GET /v1/subjects/{id}/health) and its state-change events.
 *
 * Formula (also in docs/support.md). Score = clamp(100 + sum of factor impacts, 0, 100).
 * A subject with no sessions scores 100, `healthy`, no factors (compat.md). Sessions are those
 * of `buildSessions`: any session id on an episode or a resolution record. "Open" = not resolved
 * (`open`, `unresolved`, `unknown`). "In the window" = open, or last activity within 30 days.
 *
 * | signal                  | per                                                    | impact | cap |
 * |-------------------------|--------------------------------------------------------|--------|-----|
 * | unresolved_issues       | open session                                           | -15    | -45 |
 * | idle_open_issue         | open session with no activity for more than 48 h       | -10    | -20 |
 * | sla_resolution_breaches | session in the window with resolution_breached         | -5     | -15 |
 * | slow_first_response     | session in the window with first_response_breached     | -5     | -15 |
 * | repeated_issues         | session in the window repeating an earlier one's issue | -10    | -20 |
 * | escalations             | non-agent message of the last 7 days, urgent wording   | -20    | -40 |
 * | recent_resolution       | any session resolved in the last 7 days (once)         | +5     |     |
 * | high_resolution_rate    | >= 3 sessions in the window, >= 80 % resolved (once)  | +10    |     |
 *
 * Weights: an open, idle, breached session already pays -15 and -10, so the breach adds only a
 * little; urgent wording weighs most, so a single urgent open issue is enough to leave `healthy`
 * (100 - 15 - 20 = 65, `watch`); positives can only offset, the score never exceeds 100.
 * - SLA flags come from `computeSla` with the contract defaults (5 min, 24 h) unless given.
 * - Repeated issue: two sessions' opening customer messages share >= 2 content words and those
 *   shared words are >= 60 % of the shorter message's content words (overlap coefficient).
 *   Content words: words of >= 3 letters or digits, minus stop words and generic support words,
 *   stemmed, all by the service's one text analysis (src/common/text/terms.ts). Sessions linked
 *   directly or through others form one issue; an issue raised in k sessions counts k - 1.
 * - Urgent wording: the whole words/phrases of URGENT_PATTERNS in customer and unattributed
 *   lines (agent lines excluded: "I'll escalate" is the agent's wording, not the customer's).
 * - Factors are ordered most harmful first (ties in the table's order), so the first three are
 *   the ones worth showing in a handoff.
 * - Details carry counts and ids, never durations measured to "now", so two computations a
 *   second apart render the same text unless a threshold was crossed.
 * State: healthy >= 70, watch 40–69, at_risk < 40 (contract).
 */
import { LruCache } from 'src/common/lru-cache';
import { isStopWord, splitWords, stem } from 'src/common/text/terms';
import { buildSessions, compareStrings, isOpenStatus, speakerLines, type SupportSession } from './sessions';
import { computeSla, DEFAULT_SLA_THRESHOLDS, type SlaThresholds } from './sla';
import type {
  HealthFactor,
  HealthResult,
  HealthState,
  HealthTransitionEvent,
  ResolutionRecord,
  SlaSessionItem,
  SupportEpisode,
} from './support.types';
import { HEALTH_SIGNALS } from './support.types';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const OPEN_SESSION_IMPACT = -15;
const OPEN_SESSION_CAP = -45;
const IDLE_HOURS = 48;
const IDLE_IMPACT = -10;
const IDLE_CAP = -20;
const RESOLUTION_BREACH_IMPACT = -5;
const RESOLUTION_BREACH_CAP = -15;
const SLOW_RESPONSE_IMPACT = -5;
const SLOW_RESPONSE_CAP = -15;
const REPEAT_IMPACT = -10;
const REPEAT_CAP = -20;
const ESCALATION_IMPACT = -20;
const ESCALATION_CAP = -40;
const RECENT_RESOLUTION_IMPACT = 5;
const HIGH_RATE_IMPACT = 10;
const HIGH_RATE_MIN_SESSIONS = 3;
const HIGH_RATE_MIN_SHARE = 0.8;
const HISTORY_WINDOW_DAYS = 30;
const RECENT_WINDOW_DAYS = 7;
const REPEAT_MIN_SHARED_WORDS = 2;
const REPEAT_MIN_OVERLAP = 0.6;
const MAX_IDS_IN_DETAIL = 10;

export const HEALTHY_MIN_SCORE = 70;
export const WATCH_MIN_SCORE = 40;


/** Label shown in a detail, matched as whole words (case-insensitive). */
const URGENT_PATTERNS: ReadonlyArray<readonly [string, RegExp]> = [
  ['urgent', /\burgent(ly)?\b/],
  ['asap', /\basap\b|\bas soon as possible\b/],
  ['emergency', /\bemergency\b/],
  ['escalate', /\bescalat(e|ed|ing|ion)\b/],
  ['outage', /\boutages?\b/],
  ['critical', /\bcritical\b/],
  ['is down', /\b(production|prod|site|website|service|server|system|app|api|everything)\s+(is|was|went|has been)\s+down\b/],
  ['data loss', /\b(data loss|losing data|lost (all )?(our|my) data)\b/],
];

/**
 * Support words that say nothing about which issue a message raises ("help", "issue", "today"):
 * two sessions sharing them are not the same issue. Beside the shared analysis's stop words.
 */
const SUPPORT_FILLER: ReadonlySet<string> = new Set(
  (
    'cannot won wont onto please help issue issues problem problems today yesterday since still keep keeps ' +
    'many anyone someone something getting'
  ).split(' '),
);

/** Words this short ("ok", "id", "pc") are too ambiguous to tie two sessions together. */
const MIN_CONTENT_WORD_LENGTH = 3;

export interface HealthOptions {
  now: Date;
  /** SLA thresholds for the breach signals; contract defaults when absent. */
  sla?: Partial<SlaThresholds>;
  /** What earlier computations read from episode texts. A fresh index when absent: same result, more work. */
  texts?: HealthTextIndex;
  /** The tenant whose subject this is (null or absent: single-tenant mode), so `texts` keeps each tenant's readings apart. */
  tenantId?: string | null;
}

/**
 * Whose subject a HealthTextIndex is asked about: two tenants may use the same subject id (and
 * the same session ids), so everything the index keeps is keyed by tenant and subject.
 */
export interface HealthSubject {
  /** null: single-tenant mode. */
  tenantId: string | null;
  subjectId: string;
}

/** A HealthTextIndex as one computation reads it: the index and the subject it reads for. */
export interface IndexedSubject {
  texts: HealthTextIndex;
  subject: HealthSubject;
}

/** What health reads from one episode's text. */
interface EpisodeSignals {
  /** Whose episode it was read for: an entry answers for that tenant's subject only. */
  subject: HealthSubject;
  source: string;
  text: string;
  /** Content words of the customer's lines joined by a space; null when the customer says nothing here. */
  opening: ReadonlySet<string> | null;
  /** URGENT_PATTERNS labels found in its customer and unattributed lines. */
  urgent: readonly string[];
}

/** Episodes whose signals a HealthTextIndex keeps (least recently used dropped first). */
const DEFAULT_INDEX_ENTRIES = 10_000;
/** Subjects whose session links a HealthTextIndex keeps (least recently computed dropped first). */
const DEFAULT_LINKED_SUBJECTS = 256;

/**
 * Health's reading of episode texts, kept between computations. Why: health is recomputed after
 * every burst of ingestion into a subject (HealthRefresher) and on every read, and splitting
 * speaker lines, stemming and matching urgent wording over all of a subject's episodes each time
 * made the recomputation grow with every episode ingested. Episodes are written once, so their
 * signals are read once per process; an entry is used only while the episode's id, source and
 * text are exactly those it was read from, so a cached answer cannot differ from a fresh one.
 * Bounded: at most `maxEntries` episodes (their text, cut to SUPPORT_TEXT_CHARS, is held for
 * that comparison), least recently used dropped first. It also keeps, for `maxSubjects`
 * subjects, which sessions were found to raise the same issue (takeLinks), so a recomputation
 * after new episodes compares only the new sessions' openings with the others. Links are keyed
 * by tenant and subject (HealthSubject), and an episode's reading answers only for the tenant
 * and subject it was read for: one tenant's computation never takes, extends or reuses another
 * tenant's entries for a subject of the same id. (Episode entries stay keyed by the episode id
 * alone, a server-made UUID: a composite key built and hashed per episode cost more than the
 * rest of a warm computation.)
 */
export class HealthTextIndex {
  private readonly entries: LruCache<string, EpisodeSignals>;
  private readonly links: LruCache<string, SessionLinks>;

  constructor(maxEntries = DEFAULT_INDEX_ENTRIES, maxSubjects = DEFAULT_LINKED_SUBJECTS) {
    this.entries = new LruCache(maxEntries);
    this.links = new LruCache(maxSubjects);
  }

  /**
   * The session links of the subject's last computation when its sessions are a prefix of these
   * (same session ids, openings read from the same episode texts: identical sets), to be
   * extended with the rest; otherwise none. Any other change (a session left the history window,
   * an opening changed) starts over, so the groups are always those of comparing every pair.
   * Taken out until `keepLinks` puts the extended one back.
   */
  takeLinks(subject: HealthSubject, ids: readonly string[], words: readonly ReadonlySet<string>[]): SessionLinks {
    const kept = this.links.take(subjectKey(subject));
    if (kept !== undefined && kept.ids.length <= ids.length && kept.ids.every((id, i) => id === ids[i] && kept.words[i] === words[i])) return kept;
    return emptyLinks();
  }

  keepLinks(subject: HealthSubject, links: SessionLinks): void {
    this.links.set(subjectKey(subject), links);
  }

  get size(): number {
    return this.entries.size;
  }

  signals(subject: HealthSubject, episode: SupportEpisode): EpisodeSignals {
    const hit = this.entries.get(episode.id);
    if (
      hit !== undefined &&
      hit.subject.tenantId === subject.tenantId &&
      hit.subject.subjectId === subject.subjectId &&
      hit.text === episode.text &&
      hit.source === episode.source
    ) {
      return hit;
    }
    const lines = speakerLines(episode);
    const customer = lines.filter((l) => l.speaker === 'customer');
    const spoken = lines
      .filter((l) => l.speaker !== 'agent')
      .map((l) => l.text)
      .join('\n')
      .toLowerCase();
    const signals: EpisodeSignals = {
      subject,
      source: episode.source,
      text: episode.text,
      opening: customer.length > 0 ? contentWords(customer.map((l) => l.text).join(' ')) : null,
      urgent: URGENT_PATTERNS.filter(([, pattern]) => pattern.test(spoken)).map(([label]) => label),
    };
    return this.entries.set(episode.id, signals);
  }
}

/** A subject's key in a map: JSON of (tenant, subject), so no two subjects share one whatever their characters. */
export function subjectKey(subject: HealthSubject): string {
  return JSON.stringify([subject.tenantId, subject.subjectId]);
}

export function computeHealth(
  subjectId: string,
  episodes: readonly SupportEpisode[],
  resolutions: readonly ResolutionRecord[],
  options: HealthOptions,
): HealthResult {
  const sessions = buildSessions(episodes, resolutions);
  if (sessions.length === 0) return { subject_id: subjectId, score: 100, state: 'healthy', factors: [] };

  const now = options.now.getTime();
  const read: IndexedSubject = {
    texts: options.texts ?? new HealthTextIndex(),
    subject: { tenantId: options.tenantId ?? null, subjectId },
  };
  const thresholds: SlaThresholds = { ...DEFAULT_SLA_THRESHOLDS, ...options.sla };
  const sla = new Map(
    computeSla(subjectId, episodes, resolutions, { ...thresholds, now: options.now }).sessions.map((s) => [s.session_id, s] as const),
  );
  const inWindow = sessions.filter((s) => isOpenStatus(s.status) || s.last_activity_at.getTime() >= now - HISTORY_WINDOW_DAYS * DAY_MS);
  const factors = [
    ...issueFactors(sessions, inWindow, episodes, now, read),
    ...slaFactors(inWindow, (s) => sla.get(s.session_id), thresholds),
    ...resolutionFactors(sessions, inWindow, now),
  ];
  factors.sort((a, b) => a.impact - b.impact || HEALTH_SIGNALS.indexOf(a.signal) - HEALTH_SIGNALS.indexOf(b.signal));
  const score = Math.min(100, Math.max(0, 100 + factors.reduce((sum, f) => sum + f.impact, 0)));
  return { subject_id: subjectId, score, state: healthStateForScore(score), factors };
}

/** Open, idle, repeated and urgent issues (negative factors). */
function issueFactors(sessions: readonly SupportSession[], inWindow: readonly SupportSession[], episodes: readonly SupportEpisode[], now: number, read: IndexedSubject): HealthFactor[] {
  const factors: HealthFactor[] = [];
  const open = sessions.filter((s) => isOpenStatus(s.status));
  if (open.length > 0) factors.push({ signal: 'unresolved_issues', impact: capped(open.length, OPEN_SESSION_IMPACT, OPEN_SESSION_CAP), detail: `${open.length} open session(s)` });

  const idle = open.filter((s) => s.last_activity_at.getTime() < now - IDLE_HOURS * HOUR_MS);
  if (idle.length > 0) {
    factors.push({ signal: 'idle_open_issue', impact: capped(idle.length, IDLE_IMPACT, IDLE_CAP), detail: `${idle.length} open session(s) idle for more than ${IDLE_HOURS}h: ${ids(idle)}` });
  }

  const repeated = repeatedIssues(inWindow, read);
  const repeats = repeated.reduce((sum, group) => sum + group.length - 1, 0);
  if (repeats > 0) {
    factors.push({
      signal: 'repeated_issues',
      impact: capped(repeats, REPEAT_IMPACT, REPEAT_CAP),
      detail: repeated.map((group) => `same issue raised in ${group.length} sessions: ${ids(group)}`).join('; '),
    });
  }

  const urgent = urgentMessages(episodes, now - RECENT_WINDOW_DAYS * DAY_MS, read);
  if (urgent.count > 0) {
    factors.push({
      signal: 'escalations',
      impact: capped(urgent.count, ESCALATION_IMPACT, ESCALATION_CAP),
      detail: `${urgent.count} message(s) with urgent wording in the last ${RECENT_WINDOW_DAYS} days (${urgent.labels.join(', ')})`,
    });
  }
  return factors;
}

/** SLA breaches of the sessions in the history window (negative factors). */
function slaFactors(inWindow: readonly SupportSession[], slaOf: (s: SupportSession) => SlaSessionItem | undefined, thresholds: SlaThresholds): HealthFactor[] {
  const factors: HealthFactor[] = [];
  const resolutionBreaches = inWindow.filter((s) => slaOf(s)?.resolution_breached === true);
  if (resolutionBreaches.length > 0) {
    factors.push({
      signal: 'sla_resolution_breaches',
      impact: capped(resolutionBreaches.length, RESOLUTION_BREACH_IMPACT, RESOLUTION_BREACH_CAP),
      detail: `${resolutionBreaches.length} session(s) beyond the ${thresholds.resolutionThresholdHours}h resolution target: ${ids(resolutionBreaches)}`,
    });
  }

  const slowResponses = inWindow.filter((s) => slaOf(s)?.first_response_breached === true);
  if (slowResponses.length > 0) {
    factors.push({
      signal: 'slow_first_response',
      impact: capped(slowResponses.length, SLOW_RESPONSE_IMPACT, SLOW_RESPONSE_CAP),
      detail: `${slowResponses.length} session(s) waited more than ${thresholds.firstResponseThresholdMinutes} min for a first response: ${ids(slowResponses)}`,
    });
  }
  return factors;
}

/** Recent resolutions and a high resolution rate (positive factors). */
function resolutionFactors(sessions: readonly SupportSession[], inWindow: readonly SupportSession[], now: number): HealthFactor[] {
  const factors: HealthFactor[] = [];
  const recentlyResolved = sessions.filter((s) => s.resolved_at !== null && s.resolved_at.getTime() >= now - RECENT_WINDOW_DAYS * DAY_MS);
  if (recentlyResolved.length > 0) {
    factors.push({ signal: 'recent_resolution', impact: RECENT_RESOLUTION_IMPACT, detail: `${recentlyResolved.length} session(s) resolved in the last ${RECENT_WINDOW_DAYS} days` });
  }

  const resolvedInWindow = inWindow.filter((s) => !isOpenStatus(s.status)).length;
  if (inWindow.length >= HIGH_RATE_MIN_SESSIONS && resolvedInWindow / inWindow.length >= HIGH_RATE_MIN_SHARE) {
    factors.push({
      signal: 'high_resolution_rate',
      impact: HIGH_RATE_IMPACT,
      detail: `${resolvedInWindow} of ${inWindow.length} sessions of the last ${HISTORY_WINDOW_DAYS} days resolved (${Math.round((100 * resolvedInWindow) / inWindow.length)}%)`,
    });
  }
  return factors;
}

export function healthStateForScore(score: number): HealthState {
  if (score >= HEALTHY_MIN_SCORE) return 'healthy';
  if (score >= WATCH_MIN_SCORE) return 'watch';
  return 'at_risk';
}

const STATE_RANK: Readonly<Record<HealthState, number>> = { healthy: 0, watch: 1, at_risk: 2 };

/**
 * The webhook event for a change of state, or null when the state is unchanged. Moving toward
 * at_risk is `subject.health_degraded`, toward healthy `subject.health_improved`, including the
 * jumps healthy↔at_risk that skip watch. With no previous computation the subject is compared
 * with healthy/100: before its first session every subject scores exactly that, so a subject
 * first seen healthy emits nothing and one first seen at risk emits a degradation.
 */
export function healthTransitionEvent(
  previous: { state: HealthState; score: number } | null,
  current: HealthResult,
  now: Date,
): HealthTransitionEvent | null {
  const before = previous ?? { state: 'healthy', score: 100 };
  const change = STATE_RANK[current.state] - STATE_RANK[before.state];
  if (change === 0) return null;
  return {
    event: change > 0 ? 'subject.health_degraded' : 'subject.health_improved',
    data: {
      subject_id: current.subject_id,
      previous_state: before.state,
      current_state: current.state,
      score: current.score,
      previous_score: before.score,
      factors: current.factors,
      generated_at: now.toISOString(),
    },
  };
}

function capped(count: number, each: number, cap: number): number {
  return Math.max(cap, count * each);
}

/** Session ids for a detail; a long tail is counted, not listed, to keep payloads small. */
function ids(sessions: readonly SupportSession[]): string {
  const listed = sessions.slice(0, MAX_IDS_IN_DETAIL).map((s) => s.session_id);
  const rest = sessions.length - listed.length;
  return rest > 0 ? `${listed.join(', ')} and ${rest} more` : listed.join(', ');
}

/**
 * Groups (size >= 2) of sessions raising the same issue, each in session order, groups ordered
 * by their first session. Linking is transitive (union-find), so the result does not depend on
 * which pair is compared first. A session's opening is its first customer message (the first
 * of its episodes where the customer speaks).
 *
 * Pairs are found through an index of the openings' words, filtered by prefix: two openings
 * raise the same issue only when the smaller (m words) shares at least k(m) of its words with
 * the other (sameIssue: two, and 60% of m), so any m - k(m) + 1 of its words hold a shared one;
 * it takes its rarest (`prefixLength`).
 * Each session is indexed under those rarest words (its prefix, `byPrefixWord`) and under all
 * its words (`byWord`); a new session meets a smaller-or-equal earlier one through its words
 * in that one's prefix, and a larger earlier one through its own prefix, and every such
 * candidate is then counted exactly. A word nearly every opening has ("order", "account") is
 * thus almost never walked, where indexing every word walked it for every session: that cost
 * every pair of sessions on subjects whose openings share common words.
 */
export function repeatedIssues(
  sessions: readonly SupportSession[],
  { texts, subject }: IndexedSubject = { texts: new HealthTextIndex(), subject: { tenantId: null, subjectId: '' } },
): SupportSession[][] {
  const ids = sessions.map((s) => s.session_id);
  const words = sessions.map((s) => {
    for (const episode of s.episodes) {
      const opening = texts.signals(subject, episode).opening;
      if (opening !== null) return opening;
    }
    return EMPTY_WORDS;
  });
  let links = texts.takeLinks(subject, ids, words);
  // Word ranks are fixed when the links start (rarer first, by how many of these openings use
  // each word); starting again once the sessions have doubled keeps them close to the subject's
  // words at a cost amortised over the sessions added.
  if (sessions.length >= 2 * links.rankedAt) links = startLinks(words);
  const { parent, byWord, byPrefixWord, rank } = links;
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i])));
  const seenBy: number[] = new Array<number>(sessions.length).fill(-1);
  for (let j = links.ids.length; j < sessions.length; j++) {
    const mine = words[j];
    links.ids.push(ids[j]);
    links.words.push(mine);
    parent.push(j);
    if (mine.size < REPEAT_MIN_SHARED_WORDS) continue;
    for (const word of mine) if (!rank.has(word)) rank.set(word, -rank.size - 1);
    const ordered = [...mine].sort((x, y) => rank.get(x)! - rank.get(y)!);
    const prefix = ordered.slice(0, prefixLength(mine.size));
    const consider = (i: number) => {
      if (seenBy[i] === j) return;
      seenBy[i] = j;
      // Already in one group: the pair cannot change it, so it is not counted.
      const ri = root(i), rj = root(j);
      if (ri !== rj && sameIssue(sharedWords(words[i], mine), words[i].size, mine.size)) parent[Math.max(ri, rj)] = Math.min(ri, rj);
    };
    // Earlier openings no larger than this one: one of their prefix words is among its words.
    for (const word of mine) for (const i of byPrefixWord.get(word) ?? NONE) if (words[i].size <= mine.size) consider(i);
    // Larger ones: one of this opening's prefix words is among theirs.
    for (const word of prefix) for (const i of byWord.get(word) ?? NONE) if (words[i].size > mine.size) consider(i);
    for (const word of prefix) pushTo(byPrefixWord, word, j);
    for (const word of mine) pushTo(byWord, word, j);
  }
  texts.keepLinks(subject, links);
  const groups = new Map<number, SupportSession[]>();
  sessions.forEach((s, i) => {
    const r = root(i);
    const group = groups.get(r);
    if (group === undefined) groups.set(r, [s]);
    else group.push(s);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}

/**
 * Which sessions raise the same issue, as far as the first `ids.length` sessions go: their ids
 * and opening words (the very sets HealthTextIndex.signals returned), the union-find over them,
 * the word ranks and the two indexes of repeatedIssues. Kept per subject so a recomputation
 * compares only the sessions added since the last one with the others.
 */
interface SessionLinks {
  ids: string[];
  words: ReadonlySet<string>[];
  parent: number[];
  /** Rank of each word (lower: rarer); a word first met after the start ranks below all, as rare. */
  rank: Map<string, number>;
  /** How many sessions the ranks were counted over (at least 1): the links start again at twice that. */
  rankedAt: number;
  byWord: Map<string, number[]>;
  byPrefixWord: Map<string, number[]>;
}

function emptyLinks(): SessionLinks {
  return { ids: [], words: [], parent: [], rank: new Map(), rankedAt: 0, byWord: new Map(), byPrefixWord: new Map() };
}

/** Empty links whose word ranks count these openings: fewer openings using a word rank it rarer (ties by the word). */
function startLinks(openings: readonly ReadonlySet<string>[]): SessionLinks {
  const uses = new Map<string, number>();
  for (const opening of openings) for (const word of opening) uses.set(word, (uses.get(word) ?? 0) + 1);
  const ordered = [...uses.keys()].sort((x, y) => uses.get(x)! - uses.get(y)! || compareStrings(x, y));
  return { ...emptyLinks(), rank: new Map(ordered.map((word, i) => [word, i])), rankedAt: Math.max(1, openings.length) };
}

/** How many of an opening's rarest words must include one it shares with any opening it raises the same issue as. */
function prefixLength(size: number): number {
  let shared = REPEAT_MIN_SHARED_WORDS;
  while (!sameIssue(shared, size, size)) shared++;
  return size - shared + 1;
}

function sharedWords(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared;
}

function pushTo(index: Map<string, number[]>, word: string, session: number): void {
  const list = index.get(word);
  if (list === undefined) index.set(word, [session]);
  else list.push(session);
}

const NONE: readonly number[] = [];
const EMPTY_WORDS: ReadonlySet<string> = new Set();

/** Two openings with `shared` words in common (of `a` and `b` words) raise the same issue. */
function sameIssue(shared: number, a: number, b: number): boolean {
  return shared >= REPEAT_MIN_SHARED_WORDS && shared / Math.min(a, b) >= REPEAT_MIN_OVERLAP;
}

/** Stemmed content words of a message, by the service's one text analysis (src/common/text/terms.ts). */
export function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of splitWords(text)) {
    if (word.length < MIN_CONTENT_WORD_LENGTH || isStopWord(word) || SUPPORT_FILLER.has(word)) continue;
    words.add(stem(word));
  }
  return words;
}

/** Episodes since `fromMs` whose non-agent lines use urgent wording, and the labels found. */
function urgentMessages(episodes: readonly SupportEpisode[], fromMs: number, { texts, subject }: IndexedSubject): { count: number; labels: string[] } {
  const found = new Set<string>();
  let count = 0;
  for (const episode of episodes) {
    if (episode.created_at.getTime() < fromMs) continue;
    const labels = texts.signals(subject, episode).urgent;
    if (labels.length === 0) continue;
    count++;
    labels.forEach((l) => found.add(l));
  }
  return { count, labels: URGENT_PATTERNS.map(([label]) => label).filter((l) => found.has(l)) };
}

