import { extractFacts } from './fact-patterns';

/** "key = value" lines of the integration and notification facts only. */
const requirements = (sentence: string): string[] =>
  extractFacts(sentence)
    .filter((f) => f.attribute === 'integration' || f.attribute === 'notification')
    .map((f) => `${f.attribute} = ${f.value}`);

describe('extractFacts: how the customer integrates', () => {
  it.each([
    ['Our engineers would rather integrate through the Python SDK than anything else.', 'integration = Python SDK'],
    ['I want to integrate via the Python SDK.', 'integration = Python SDK'],
    ["We're planning to integrate with your REST API next quarter.", 'integration = REST API'],
    ["We'll integrate using the GraphQL endpoint.", 'integration = GraphQL endpoint'],
    ['We integrate with Zapier.', 'integration = Zapier'],
    ["We'd rather use the Go client library.", 'integration = Go client library'],
    ['Our team uses the Java SDK for everything.', 'integration = Java SDK'],
    ['I prefer the CSV bulk upload to the API.', 'integration = CSV bulk upload'],
    ["We're already using your Salesforce connector.", 'integration = Salesforce connector'],
    ['Our preferred integration is the Terraform provider.', 'integration = Terraform provider'],
    ['Our developers would prefer to go with the Ruby gem, since it is maintained.', 'integration = Ruby gem'],
    ['Our platform team is going to integrate using the Kotlin client library.', 'integration = Kotlin client library'],
  ])('%s', (sentence, expected) => {
    expect(requirements(sentence)).toEqual([expected]);
  });
});

describe('extractFacts: how the customer wants to be notified', () => {
  it.each([
    ['We also need Slack alerts whenever a job finishes.', 'notification = Slack alerts'],
    ['We also need webhook notifications for real-time updates.', 'notification = webhook notifications'],
    ["I'd like a daily email digest.", 'notification = daily email digest'],
    ['We would like a weekly email digest of failed syncs.', 'notification = weekly email digest'],
    ['Our on-call team wants PagerDuty alerts for failed runs.', 'notification = PagerDuty alerts'],
    ['We require SMS alerts when an export fails.', 'notification = SMS alerts'],
    ['We would prefer Microsoft Teams messages over email.', 'notification = Microsoft Teams messages'],
    ['Please notify us via Slack.', 'notification = Slack'],
    ["We'd like to be alerted by SMS.", 'notification = SMS'],
    ['Send us alerts on Microsoft Teams.', 'notification = Microsoft Teams'],
  ])('%s', (sentence, expected) => {
    expect(requirements(sentence)).toEqual([expected]);
  });

  it('keys a notification by its value, so two channels are two facts', () => {
    const keys = [...extractFacts('We need Slack alerts.'), ...extractFacts('We also need a daily email digest.')].map((f) => f.key);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  });
});

describe('extractFacts: requirement-like sentences that are no facts', () => {
  it.each([
    'Do you have a Python SDK?',
    'Does the API support webhooks?',
    'The Python SDK keeps crashing on import.',
    'They want to integrate via the REST API.',
    "We don't want to integrate through Zapier.",
    'We would rather not integrate through the API.',
    'If we integrate via the SDK, will retries work?',
    'We need to fix the Slack alerts.',
    "We don't need SMS alerts anymore.",
    'We need no more alerts, please.',
    'Our Slack alerts stopped arriving yesterday.',
    'I need help with the API.',
    'I use the library on weekends.',
    'I love going to the public library.',
    'We need a break from all this.',
    'I got an alert from my bank this morning.',
    "I'd rather use email.",
    'Can you check why the webhook notifications are late?',
  ])('%s', (sentence) => {
    expect(requirements(sentence)).toEqual([]);
  });

  it('leaves a bare channel to the contact preference', () => {
    expect(extractFacts('I would prefer email.').map((f) => `${f.key} = ${f.value}`)).toEqual(['profile:contact_preference = email']);
  });
});
