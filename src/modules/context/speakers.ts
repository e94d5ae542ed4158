/**
 * Who speaks in a context item, for ranking: the named people among its roles. A chat between
 * named people ("Caroline", "Melanie") says most of what it knows about a person in that
 * person's own turns, so the speaker is a field of its own (ranking.ts, `fieldScores`); the
 * generic roles of a support conversation (`user`, `assistant`) name nobody and are left out,
 * which keeps support ranking as it was. Roles come from the data, never from the text: a
 * raw episode's message roles, a summary's `metadata.roles`, a fact's or procedure's
 * `metadata.speaker` (see `candidateSpeakers`), so a document line such as "Note: …" is no one.
 */
import { classifyRole } from 'src/compiler/speaker-roles';

/** At most this many roles of one item are looked at (a summary keeps 10, a message list any number). */
const MAX_ROLES = 10;

/** Roles repeat across every item of a subject: classify each once. */
const classified = new Map<string, string | null>();
const MAX_CACHED = 10_000;

/** The name a role gives ("Caroline"), or null for a generic role ("user", "assistant", "system"). */
export function speakerName(role: string): string | null {
  let name = classified.get(role);
  if (name === undefined) {
    name = classifyRole(role).name;
    if (classified.size >= MAX_CACHED) classified.clear();
    classified.set(role, name);
  }
  return name;
}

/** The distinct named people among `roles`, in order of first appearance. */
export function namedSpeakers(roles: readonly string[] | null | undefined): string[] {
  if (!roles) return [];
  const names = new Set<string>();
  for (const role of roles.slice(0, MAX_ROLES)) {
    const name = speakerName(role);
    if (name !== null) names.add(name);
  }
  return [...names];
}

/**
 * The roles speaking in a stored item: for an episode, the `role` of each of its payload's
 * `messages`; for a memory, its `metadata.roles` (a conversation summary) or `metadata.speaker`
 * (a fact or procedure the compiler attributed). Empty when the data names none.
 */
export function candidateSpeakers(source: { payload?: unknown; metadata?: unknown }): string[] {
  const roles: string[] = [];
  const messages = (source.payload as { messages?: unknown } | null | undefined)?.messages;
  if (Array.isArray(messages)) {
    for (const m of messages.slice(0, MAX_ROLES)) {
      const role = (m as { role?: unknown } | null)?.role;
      if (typeof role === 'string') roles.push(role);
    }
  }
  const metadata = source.metadata as { roles?: unknown; speaker?: unknown } | null | undefined;
  if (Array.isArray(metadata?.roles)) roles.push(...metadata.roles.slice(0, MAX_ROLES).filter((r): r is string => typeof r === 'string'));
  if (typeof metadata?.speaker === 'string') roles.push(metadata.speaker);
  return roles;
}
