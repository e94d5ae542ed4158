/**
 * A support-desk scenario set of our own, next to LoCoMo: synthetic customers, each with a plan,
 * stated integration and notification preferences, a resolved issue and an open one (each with
 * the ticket id the agent gave), and enough billing back-and-forth that a small budget cannot
 * hold everything. Tasks are phrased the way agents ask and do not repeat the customer's words.
 * A task's recall is the share of its expected strings found in `assembled_context`.
 *
 * Deterministic: the same customers, sessions and tasks on every run.
 */
import type { Client } from '../common/http';

export interface Customer {
  id: string;
  company: string;
  plan: string;
  integration: string;
  notification: string;
  resolved: { topic: string; complaint: string; ticket: string; fix: string };
  open: { topic: string; complaint: string; ticket: string; question: string };
}

export interface SupportTask {
  kind: 'integration' | 'reply' | 'open-ticket' | 'resolved-ticket';
  subjectId: string;
  task: string;
  expected: string[];
}

const INTEGRATIONS = ['Python SDK', 'Go client library', 'GraphQL endpoint', 'Zapier connector', 'Java SDK', 'CSV bulk upload'];
const NOTIFICATIONS = ['webhook notifications', 'a daily email digest', 'Slack alerts', 'PagerDuty alerts', 'SMS alerts', 'Microsoft Teams messages'];
const PLANS = ['Business', 'Enterprise', 'Pro', 'Starter', 'Growth', 'Premium'];
const COMPANIES = ['Fernhill Logistics', 'Bramble Health', 'Quayside Foods', 'Northwind Optics', 'Tallis Robotics', 'Harrow Media'];
const RESOLVED = [
  { topic: 'CSV export', complaint: 'The CSV export cuts off after 10,000 rows.', fix: 'We raised the export limit for your workspace.' },
  { topic: 'password reset', complaint: 'Password reset emails never arrive for our staff.', fix: 'Your mail server was rejecting our sender; we switched to a verified domain.' },
  { topic: 'dashboard loading', complaint: 'The dashboard takes a minute to load every morning.', fix: 'We rebuilt the slow report index overnight.' },
  { topic: 'invoice currency', complaint: 'Our invoices show dollars but we pay in euros.', fix: 'Billing currency is now set to EUR.' },
  { topic: 'mobile login', complaint: 'The mobile app logs us out every hour.', fix: 'We shipped a fix in app version 4.2.' },
  { topic: 'audit log gaps', complaint: 'The audit log is missing entries from last weekend.', fix: 'We replayed the missing audit events.' },
];
const OPEN = [
  { topic: 'SSO', complaint: 'Nobody can sign in with SSO since this morning, Okta reports a SAML assertion error.', question: 'Any update on the SSO issue?' },
  { topic: 'API rate limits', complaint: 'Our nightly sync keeps hitting HTTP 429 from your API.', question: 'Where are we with the rate limit problem?' },
  { topic: 'duplicate charges', complaint: 'We were charged twice for the annual renewal.', question: 'Has the double charge been sorted out yet?' },
  { topic: 'data import', complaint: 'The Salesforce import stalls at 80 percent.', question: 'Any progress on the stuck import?' },
  { topic: 'webhook delays', complaint: 'Events reach our endpoint twenty minutes late.', question: 'What is the status of the delayed events?' },
  { topic: 'report permissions', complaint: 'Managers cannot open the shared quarterly reports.', question: 'Is the reports access problem fixed?' },
];
const BILLING_CHATTER = [
  'Can you resend the receipt for last month?',
  'We added three seats, will the next invoice be prorated?',
  'Please update the billing address to our new office.',
  'Is there a discount if we pay annually?',
  'Our purchase order number needs to appear on invoices.',
  'Why did the invoice total change from last quarter?',
  'Can we split the invoice across two cost centres?',
  'Who do we contact about a tax exemption certificate?',
];

export function supportCustomers(count = 6): Customer[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `support-${i}`,
    company: COMPANIES[i % COMPANIES.length],
    plan: PLANS[i % PLANS.length],
    integration: INTEGRATIONS[i % INTEGRATIONS.length],
    notification: NOTIFICATIONS[(i + 2) % NOTIFICATIONS.length],
    resolved: { ...RESOLVED[i % RESOLVED.length], ticket: `SUP-${4100 + i * 7}` },
    open: { ...OPEN[i % OPEN.length], ticket: `ENG-${5200 + i * 13}` },
  }));
}

type Role = 'user' | 'assistant';

function turn(subject: string, session: string, role: Role, content: string, at: Date): Record<string, unknown> {
  return {
    subject_id: subject,
    session_id: session,
    source: role === 'user' ? 'support-chat' : 'agent',
    type: 'conversation',
    payload: { messages: [{ role, content }], date: at.toISOString().slice(0, 10) },
  };
}

/** Sessions in time order: onboarding, the resolved issue, billing, the open issue. */
export function supportConversation(c: Customer, subject: string): Record<string, unknown>[] {
  const day = (n: number) => new Date(Date.UTC(2026, 0, 5 + n));
  const out: Record<string, unknown>[] = [];
  const add = (session: string, n: number, lines: [Role, string][]) => lines.forEach(([role, text]) => out.push(turn(subject, session, role, text, day(n))));
  add('onboarding', 0, [
    ['user', `Hi, this is the ops team at ${c.company}. We are on the ${c.plan} plan and starting our rollout.`],
    ['assistant', 'Welcome! Happy to help you plan the rollout.'],
    ['user', `Our engineers would rather integrate through the ${c.integration} than anything else.`],
    ['user', `We also need ${c.notification} whenever a job finishes.`],
    ['assistant', 'Noted, I will send the setup guide to your team.'],
  ]);
  add('resolved-issue', 3, [
    ['user', c.resolved.complaint],
    ['assistant', `Thanks, I have logged this as ${c.resolved.ticket} and will look into it.`],
    ['assistant', `Update on ${c.resolved.ticket}: ${c.resolved.fix}`],
    ['user', 'Confirmed, it works now. Thank you!'],
  ]);
  const billing: [Role, string][] = [];
  for (const line of BILLING_CHATTER) {
    billing.push(['user', line]);
    billing.push(['assistant', `Thanks, our accounts team will handle that request and reply by email: ${line.toLowerCase()}`]);
  }
  add('billing', 6, billing);
  add('open-issue', 9, [
    ['user', c.open.complaint],
    ['assistant', `Sorry about that. I have escalated it to engineering as ${c.open.ticket} and will keep you posted.`],
    ['user', 'Please hurry, this blocks our whole team.'],
  ]);
  return out;
}

/** Agent-style tasks; none repeats the words of the preference it needs. */
export function supportTasks(c: Customer, subject: string): SupportTask[] {
  return [
    { kind: 'integration', subjectId: subject, task: 'Suggest an integration approach for this customer', expected: [c.integration, c.notification] },
    { kind: 'reply', subjectId: subject, task: "Draft a friendly reply to this customer's latest message", expected: [c.integration, c.notification, c.open.ticket] },
    { kind: 'open-ticket', subjectId: subject, task: c.open.question, expected: [c.open.ticket] },
    { kind: 'resolved-ticket', subjectId: subject, task: `The customer says the ${c.resolved.topic} problem is back. What happened last time?`, expected: [c.resolved.ticket] },
  ];
}

/** Ingests, records resolutions and compiles every customer; returns the tasks to ask. */
export async function loadSupportSet(api: Client, run: string): Promise<SupportTask[]> {
  const out: SupportTask[] = [];
  for (const c of supportCustomers()) {
    const subject = `${c.id}/${run}`;
    await api.call('POST', '/v1/episodes/batch', { episodes: supportConversation(c, subject) });
    await api.call('POST', '/v1/resolutions', { subject_id: subject, session_id: 'resolved-issue', status: 'resolved', resolution_summary: c.resolved.fix });
    await api.call('POST', '/v1/resolutions', { subject_id: subject, session_id: 'open-issue', status: 'open' });
    await api.call('POST', '/v1/memories/compile', { subject_id: subject });
    out.push(...supportTasks(c, subject));
  }
  return out;
}

/** Share of the expected strings present (case-insensitive). */
export function supportRecall(expected: readonly string[], context: string): number {
  const text = context.toLowerCase();
  return expected.filter((e) => text.includes(e.toLowerCase())).length / expected.length;
}
