import type { Client } from '../common/http';
import { prng } from '../common/stats';

/** Deterministic synthetic support conversations: names, plans, preferences, issues, sessions. */
const FIRST = ['Juno', 'Arlo', 'Mina', 'Tomas', 'Priya', 'Kenji', 'Lena', 'Omar', 'Sofia', 'Wren', 'Ivan', 'Nadia'];
const LAST = ['Marsh', 'Okafor', 'Lindqvist', 'Reyes', 'Sato', 'Brennan', 'Haddad', 'Novak', 'Castillo', 'Achebe'];
const COMPANIES = ['Acme Robotics', 'Blue Harbor Labs', 'Northwind Foods', 'Quartz Analytics', 'Juniper Health'];
const PLANS = ['Free', 'Starter', 'Pro', 'Business', 'Enterprise'];
const CITIES = ['Lisbon', 'Toronto', 'Nairobi', 'Osaka', 'Denver', 'Berlin', 'Austin'];
const ISSUES = [
  'the CSV export times out after two minutes',
  'webhooks stopped arriving since yesterday',
  'I was charged twice on my last invoice',
  'SSO login loops back to the sign-in page',
  'the mobile app crashes when I open reports',
  'API requests return 429 even at low volume',
  'dashboard charts show no data for last week',
];
const STEPS = [
  'clear the browser cache and sign in again',
  'rotate the API key under Settings > Developers',
  're-run the export with a smaller date range',
  'reinstall the mobile app from the store',
  'check the webhook endpoint returns 200 within 5 seconds',
];

export interface Episode {
  subject_id: string;
  session_id: string;
  source: string;
  type: string;
  payload: { messages: { role: string; content: string }[] };
}

export function conversation(subjectId: string, seed: number, session: number): Episode[] {
  const r = prng(seed * 7919 + session);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const name = `${pick(FIRST)} ${pick(LAST)}`;
  const issue = pick(ISSUES);
  const sessionId = `${subjectId}-s${session}`;
  const user = (content: string): Episode => ({ subject_id: subjectId, session_id: sessionId, source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content }] } });
  const agent = (content: string): Episode => ({ subject_id: subjectId, session_id: sessionId, source: 'agent', type: 'conversation', payload: { messages: [{ role: 'assistant', content }] } });
  return [
    user(`Hi, my name is ${name} and I work at ${pick(COMPANIES)}. We are on the ${pick(PLANS)} plan.`),
    agent(`Thanks ${name.split(' ')[0]}, how can I help today?`),
    user(`Since this morning ${issue}. It is blocking our team in ${pick(CITIES)}.`),
    agent(`Sorry about that. Please ${pick(STEPS)} and tell me if it persists.`),
    user(`I prefer email over phone calls. I tried that and ${r() < 0.5 ? 'it worked, thanks' : 'it still fails'}.`),
  ];
}

/** `count` episodes for one subject, as many sessions as needed. */
export function episodesFor(subjectId: string, count: number, seed: number): Episode[] {
  const out: Episode[] = [];
  for (let s = 0; out.length < count; s++) out.push(...conversation(subjectId, seed, s));
  return out.slice(0, count);
}

export const TASKS = [
  'Help the customer with their failing CSV export',
  'Why are webhooks not arriving?',
  'Refund question about a double charge on the invoice',
  'Customer cannot log in with SSO',
  'What plan is the customer on and how do they like to be contacted?',
];

/**
 * A subject for the context scenarios: the bench's episodes ingested 500 at a time (batches of
 * 100) and compiled after each, until it holds at least `size` memories (or a compile adds none).
 */
export async function buildContextSubject(api: Client, subjectId: string, size: number): Promise<{ memories: number; episodes: number }> {
  let memories = 0;
  let episodes = 0;
  while (memories < size) {
    const chunk = episodesFor(subjectId, episodes + 500, 99).slice(episodes);
    for (let i = 0; i < chunk.length; i += 100) await api.call('POST', '/v1/episodes/batch', { episodes: chunk.slice(i, i + 100) });
    episodes += chunk.length;
    const res = await api.call<{ memories_created: number }>('POST', '/v1/memories/compile', { subject_id: subjectId });
    memories += res.memories_created;
    if (res.memories_created === 0) break;
  }
  return { memories, episodes };
}

