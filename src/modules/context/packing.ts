/**
 * Renders ranked context items into the markdown bundle of POST /v1/context within a hard token
 * budget: `token_estimate` counts every character of `assembled_context` and never exceeds
 * `max_tokens` (compat.md), whatever the budget, task length or item sizes.
 */
import { countTokens, truncateToTokens } from 'src/common/text/tokenizer';
import { oneLine } from 'src/common/text/one-line';
import { ContextCandidate, ContextLabel, ScoredCandidate, timeOf } from './ranking';

export interface PackInput {
  /** Not rendered: the bundle's `subject_id` field carries it. */
  subjectId: string;
  task: string;
  maxTokens: number;
  /** Best first, as returned by `scoreCandidates` / `selectCandidates`. */
  ranked: ScoredCandidate[];
  currentSessionId?: string | null;
}

export interface PackResult {
  assembled_context: string;
  token_estimate: number;
  /** Items rendered, in render order (a truncated item is included under its own id). */
  included: ScoredCandidate[];
}

/** Section headings and their order (compat.md, "Context"). */
const SECTION_HEADINGS: Readonly<Record<ContextLabel, string>> = {
  profile_fact: '## About this user',
  procedure: '## Procedures',
  episode_summary: '## Recent history',
  raw_episode: '## Recent interactions',
};
const SECTION_ORDER: readonly ContextLabel[] = [
  'profile_fact',
  'procedure',
  'episode_summary',
  'raw_episode',
];
const TASK_HEADING = '## Task\n';
const TRUNCATION_MARKER = ' …';

/**
 * The task may take at most this share of the budget when there are items to show: the caller
 * already holds the task, so a 4,000-character task must not crowd out the context it asks for.
 */
const TASK_BUDGET_SHARE = 0.5;

/** A truncated item is only worth it if this many tokens of its text survive. */
const MIN_TRUNCATED_TEXT_TOKENS = 8;

/** The smallest possible rendered line ("- x\n") costs three tokens; below that nothing fits. */
const MIN_LINE_TOKENS = 3;

/**
 * Where an item renders. Episodes and summaries of the current session leave their sections and
 * go under `### Current session (<id>)` at the very end of the bundle, inside
 * `## Recent interactions`: the live conversation reads last, nearest to what the model writes
 * next. Facts and procedures keep their sections whatever session they came from.
 */
type Slot = ContextLabel | 'current_session';

function slotOf(item: ScoredCandidate, currentSessionId: string | null): Slot {
  const isEpisode = item.label === 'raw_episode' || item.label === 'episode_summary';
  return isEpisode && currentSessionId !== null && item.session_id === currentSessionId
    ? 'current_session'
    : item.label;
}

/** `YYYY-MM-DD HH:MM UTC`, so that temporal questions ("when did …?") can be answered. */
function formatDate(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A client's own date text is shown as given, cut to this length (it is free-form payload). */
const MAX_DATE_LABEL_CHARS = 64;

/**
 * Episodes and summaries carry the time they happened: the client's `payload.date` when the
 * episode has one (imported histories, where the ingestion time says nothing), else created_at.
 */
function linePrefix(item: ContextCandidate): string {
  if (item.label !== 'raw_episode' && item.label !== 'episode_summary') return '- ';
  const label = item.date_label ? oneLine(item.date_label).slice(0, MAX_DATE_LABEL_CHARS) : '';
  return `- [${label || formatDate(item.created_at)}] `;
}

/** One bullet line per item; whitespace folded so that an item can never break the layout. */
export function renderLine(item: ContextCandidate): string {
  return `${linePrefix(item)}${oneLine(item.text)}\n`;
}

interface RenderedItem {
  item: ScoredCandidate;
  slot: Slot;
  line: string;
  /** The group of a history or interaction line (groupOf); null elsewhere. */
  group: TimelineGroup | null;
}

/** Lines of one session and date: `key` tells groups apart, `heading` is what is written. */
interface TimelineGroup {
  key: string;
  heading: string;
}

/** A heading to pay for once: `key` tells apart equal texts in different sections. */
interface Heading {
  key: string;
  text: string;
}

/**
 * Headings an item needs: its section's (the current session lives inside
 * `## Recent interactions`) and, for history and interactions, its group's.
 */
function headingsOf(r: Pick<RenderedItem, 'slot' | 'group'>, sessionHeading: string): Heading[] {
  if (r.slot === 'current_session') {
    const section = `\n${SECTION_HEADINGS.raw_episode}\n`;
    return [{ key: section, text: section }, { key: sessionHeading, text: sessionHeading }];
  }
  const section = `\n${SECTION_HEADINGS[r.slot]}\n`;
  const out = [{ key: section, text: section }];
  if (r.group !== null) out.push({ key: `${r.slot}\u0000${r.group.key}`, text: r.group.heading });
  return out;
}

/**
 * History and interaction lines are grouped under one heading per session and date instead of
 * repeating a timestamp on every line: on LoCoMo the per-line `[1:56 pm on 8 May, 2023]` cost
 * about a third of an average turn's tokens, budget that now carries evidence. The heading shows
 * the client's date label when the episode has one, else the UTC day; without a label each line
 * keeps its time of day (`[10:15]`), which support timelines need.
 *
 * The session id is shown only under a UTC day (`### 2026-11-27 (session s-42)`), where it
 * tells apart the conversations of one day. Under a client's own date label the heading is the
 * label alone: the label already says which conversation it is, and a 1,000-token LoCoMo bundle
 * spent 35 of its tokens on ` (session 12)` suffixes (bench/README.md, round 6). Two sessions
 * with one label keep their own groups, under equal headings; `sessions` and each episode's
 * `session_id` in the response still name them.
 */
function groupOf(item: ContextCandidate): TimelineGroup {
  const label = item.date_label ? oneLine(item.date_label).slice(0, MAX_DATE_LABEL_CHARS) : '';
  const session = item.session_id === null ? '' : oneLine(item.session_id).slice(0, MAX_DATE_LABEL_CHARS);
  const when = label || formatDate(item.created_at).slice(0, 10);
  const suffix = label || item.session_id === null ? '' : ` (session ${session})`;
  return { key: `${when}\u0000${item.session_id === null ? '' : `s${session}`}`, heading: `### ${when}${suffix}\n` };
}

/** A line under a group heading: the heading carries the date, the line at most the time. */
function groupedLine(item: ContextCandidate): string {
  const label = item.date_label ? oneLine(item.date_label) : '';
  const time = label ? '' : `[${item.created_at.toISOString().slice(11, 16)}] `;
  return `- ${time}${oneLine(item.text)}\n`;
}

function isTimeline(label: ContextLabel): boolean {
  return label === 'raw_episode' || label === 'episode_summary';
}

/**
 * When an item happened as ranking's recency places it (`timeOf`: the client's ISO date when the
 * episode has one, else `created_at`), so that the timeline reads in the order of the dates its
 * headings show: an older history imported after newer episodes, or a batch sent out of order,
 * would otherwise read in arrival order under jumping dates. Free-text dates are not placed in
 * time (ranking.ts, `recordedAt`), so those items keep `created_at` order.
 */
function byTimeThenId(a: RenderedItem, b: RenderedItem): number {
  return (
    timeOf(a.item) - timeOf(b.item) ||
    (a.item.seq ?? 0) - (b.item.seq ?? 0) ||
    (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0)
  );
}

/**
 * Facts and procedures keep score order (most useful first); history, interactions and the
 * current session read as a timeline, oldest first. Empty sections are omitted entirely: an
 * empty heading costs tokens and suggests to the model that something is missing.
 */
function assemble(
  taskBlock: string,
  items: RenderedItem[],
  sessionHeading: string,
): { text: string; order: RenderedItem[] } {
  const order: RenderedItem[] = [];
  let text = taskBlock;
  const slots: Slot[] = [...SECTION_ORDER, 'current_session'];
  let interactionsOpen = false;
  for (const slot of slots) {
    const members = items.filter((r) => r.slot === slot);
    if (members.length === 0) continue;
    if (slot !== 'profile_fact' && slot !== 'procedure') sortTimeline(members);
    if (slot === 'current_session') {
      if (!interactionsOpen) text += `\n${SECTION_HEADINGS.raw_episode}\n`;
      text += sessionHeading;
    } else {
      text += `\n${SECTION_HEADINGS[slot]}\n`;
      interactionsOpen ||= slot === 'raw_episode';
    }
    let group: string | null = null;
    for (const member of members) {
      if (member.group !== null && member.group.key !== group) text += member.group.heading;
      group = member.group?.key ?? null;
      text += member.line;
      order.push(member);
    }
  }
  return { text, order };
}

/**
 * Oldest first, each group kept together (ordered by its first item), so that a group's
 * heading is written once even when two sessions interleave in time.
 */
function sortTimeline(members: RenderedItem[]): void {
  members.sort(byTimeThenId);
  const keyOf = (m: RenderedItem): string | null => m.group?.key ?? null;
  const firstAt = new Map<string | null, number>();
  members.forEach((m, i) => {
    if (!firstAt.has(keyOf(m))) firstAt.set(keyOf(m), i);
  });
  const position = new Map(members.map((m, i) => [m, i]));
  members.sort((a, b) => firstAt.get(keyOf(a))! - firstAt.get(keyOf(b))! || position.get(a)! - position.get(b)!);
}

/** `## Task` with the task text, cut (with a marker) to at most `maxTokens`. */
function renderTask(task: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const full = `${TASK_HEADING}${task.trim()}\n`;
  if (countTokens(full) <= maxTokens) return full;
  let textBudget = maxTokens - countTokens(`${TASK_HEADING}${TRUNCATION_MARKER}\n`);
  while (textBudget > 0) {
    const block = `${TASK_HEADING}${truncateToTokens(task.trim(), textBudget)}${TRUNCATION_MARKER}\n`;
    const cost = countTokens(block);
    if (cost <= maxTokens) return block;
    textBudget -= cost - maxTokens;
  }
  return truncateToTokens(TASK_HEADING, maxTokens);
}

/**
 * The item's line cut to fit `budget` tokens with a marker, or null when too little of it would
 * survive. Separately counted pieces only approximate a joint count, so the cut is re-checked.
 */
function truncatedLine(r: RenderedItem, budget: number): string | null {
  const item = r.item;
  const prefix = r.group === null ? linePrefix(item) : groupedLine({ ...item, text: '' }).replace(/\n$/, '');
  const suffix = `${TRUNCATION_MARKER}\n`;
  let textBudget = budget - countTokens(prefix + suffix);
  const text = oneLine(item.text);
  while (textBudget >= MIN_TRUNCATED_TEXT_TOKENS) {
    const line = `${prefix}${truncateToTokens(text, textBudget)}${suffix}`;
    const cost = countTokens(line);
    if (cost <= budget) return line;
    textBudget -= cost - budget;
  }
  return null;
}

/**
 * Greedy packing in score order: each item costs its line's tokens plus, for the first item of a
 * section, the heading's; an item that does not fit is skipped so that smaller, lower-scored
 * ones can still use the room. Lines are counted separately (not the whole document per item);
 * since BPE merges across piece boundaries only make the whole cheaper in practice (e.g. "\n\n"
 * is one token), the sum is an upper bound that the final count verifies, dropping the
 * lowest-scored items and as a last resort cutting the text if it ever is not.
 */
export function packContext(input: PackInput): PackResult {
  const maxTokens = Math.max(0, Math.floor(input.maxTokens));
  const currentSessionId = input.currentSessionId ?? null;
  const sessionHeading =
    currentSessionId === null ? '' : `\n### Current session (${oneLine(currentSessionId)})\n`;
  const tokenCache = new Map<string, number>();
  const cachedTokens = (piece: string): number => {
    let n = tokenCache.get(piece);
    if (n === undefined) tokenCache.set(piece, (n = countTokens(piece)));
    return n;
  };
  const rendered = input.ranked.map((item): RenderedItem => {
    const slot = slotOf(item, currentSessionId);
    return slot !== 'current_session' && isTimeline(item.label)
      ? { item, slot, line: groupedLine(item), group: groupOf(item) }
      : { item, slot, line: renderLine(item), group: null };
  });

  // The task gets what the items leave, but at least its share of the budget.
  const taskShare = Math.floor(maxTokens * TASK_BUDGET_SHARE);
  const itemsDemand = demandUpTo(rendered, sessionHeading, cachedTokens, taskShare);
  const taskBlock = renderTask(input.task, maxTokens - itemsDemand);

  let remaining = maxTokens - countTokens(taskBlock);
  const openHeadings = new Set<string>();
  const chosen: RenderedItem[] = [];
  const skipped: RenderedItem[] = [];
  const headingCost = (r: RenderedItem): number =>
    headingsOf(r, sessionHeading)
      .filter((h) => !openHeadings.has(h.key))
      .reduce((sum, h) => sum + cachedTokens(h.text), 0);
  const take = (r: RenderedItem, cost: number): void => {
    chosen.push(r);
    headingsOf(r, sessionHeading).forEach((h) => openHeadings.add(h.key));
    remaining -= cost;
  };

  for (const r of rendered) {
    if (remaining < MIN_LINE_TOKENS) break;
    const cost = headingCost(r) + cachedTokens(r.line);
    if (cost <= remaining) take(r, cost);
    else skipped.push(r);
  }

  // Leftover room goes to the best item that did not fit whole, cut down to the room.
  for (const r of skipped) {
    const headings = headingCost(r);
    if (remaining - headings < MIN_TRUNCATED_TEXT_TOKENS) continue;
    const line = truncatedLine(r, remaining - headings);
    if (line === null) continue;
    take({ ...r, line }, headings + countTokens(line));
    break;
  }

  let { text, order } = assemble(taskBlock, chosen, sessionHeading);
  let tokens = countTokens(text);
  while (tokens > maxTokens && chosen.length > 0) {
    chosen.pop();
    ({ text, order } = assemble(taskBlock, chosen, sessionHeading));
    tokens = countTokens(text);
  }
  if (tokens > maxTokens) {
    text = truncateToTokens(text, maxTokens);
    tokens = countTokens(text);
  }
  return { assembled_context: text, token_estimate: tokens, included: order.map((r) => r.item) };
}

/**
 * Tokens the best items would take with their headings, counted only until `cap` is reached:
 * enough to know how much of the budget the task may use without tokenising thousands of items.
 */
function demandUpTo(
  rendered: readonly RenderedItem[],
  sessionHeading: string,
  tokens: (piece: string) => number,
  cap: number,
): number {
  const headings = new Set<string>();
  let demand = 0;
  for (const r of rendered) {
    if (demand >= cap) break;
    for (const heading of headingsOf(r, sessionHeading)) {
      if (!headings.has(heading.key)) demand += tokens(heading.text);
      headings.add(heading.key);
    }
    demand += tokens(r.line);
  }
  return Math.min(demand, cap);
}
