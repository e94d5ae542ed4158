/**
 * Rules for what a customer asks of the product: the integration they build on ("our engineers
 * would rather integrate through the Python SDK") and how they want to be notified ("we also
 * need Slack alerts whenever a job finishes"). A support agent needs these whatever the task
 * says, so they are profile facts (kind priority 10, the standing share of the budget) rather
 * than lines of a summary. Many-valued: a customer may use two integrations and want alerts on
 * two channels, so keys name the value (`integration:python sdk`) and only a restatement of the
 * same one overlaps.
 *
 * Closed on purpose, like the other fact rules: the value must name an integration (an SDK, an
 * API, a connector…) or a notification (alerts, a digest, a channel's messages), the statement
 * must be the speaker's own (I, we, our team) and affirmative. "We need to fix the Slack alerts",
 * "we don't need SMS alerts", "I'd rather use the library" and "they want webhooks" are no facts.
 */
import { keyPhrase } from './compiler-text';
import { CONTACT_CHANNELS } from './fact-lexicon';
import { FactMatch, FactRule, keyedFact, rx } from './fact-rule';
import { readPhrase, withoutDeterminers } from './fact-values';

/** The speaker or their organisation: "I", "we", "our engineers", "our ops team". */
const SPEAKER = String.raw`\b(?:i|we|our\s+(?!own\b)[\p{L}-]+(?:\s+[\p{L}-]+)?)`;

/**
 * Auxiliaries and adverbs between the speaker and the verb ("would rather", "'re planning to",
 * "also", "definitely want to"); a negation is not among them, so "we don't want to integrate"
 * never reaches the verb.
 */
const LEAD = String.raw`(?:(?:'d|'ll|'re|'m|\s+(?:would|will|want|wants|need|needs|plan|plans|intend|intends|prefer|prefers|like|hope|hoping|are|am|is|have|has|must|should|also|really|only|still|definitely|rather|going|planning|currently|already|mostly|mainly|now|to|be|soon|eventually)))*`;

/** Words that name a way in: a value holding one of these (or a platform below) is an integration. */
const INTEGRATION_NOUNS = new Set([
  'sdk', 'sdks', 'api', 'apis', 'connector', 'connectors', 'plugin', 'plugins', 'plug-in', 'integration', 'integrations',
  'endpoint', 'endpoints', 'cli', 'webhook', 'webhooks', 'upload', 'uploads', 'import', 'imports', 'extension', 'extensions',
  'graphql', 'grpc', 'zapier', 'n8n', 'ifttt', 'workato', 'mulesoft', 'airbyte', 'fivetran', 'terraform', 'sftp', 'odbc',
  'jdbc',
]);
/** Two-word names: "client library" is a way in, "library" alone is where books are. */
const INTEGRATION_PAIRS = /\b(?:client|code|python|java|go|ruby|node|javascript|typescript|php|rust|swift|kotlin|c#|\.net)\s+(?:librar(?:y|ies)|clients?|packages?|modules?|gems?)\b/i;

/** Head nouns of a notification ("Slack alerts", "a daily email digest"). */
const NOTIFICATION_HEADS = /\b(?:alerts?|notifications?|digests?|reminders?|pings?|pages?)$/i;
/** Channels that make "messages", "emails" or "texts" a notification ("Microsoft Teams messages"). */
const CHANNELS =
  /\b(?:slack|e-?mail|emails?|sms|text|pagerduty|opsgenie|teams|discord|whatsapp|telegram|signal|webhooks?|push|in-app|mobile|desktop|phone)\b/i;
const CHANNEL_HEADS = /\b(?:messages?|e-?mails?|texts?|updates?|calls?|webhooks?|pushes)$/i;
/** A bare channel after "notify us via …". */
const CHANNEL_VALUE =
  /^(?:slack|e-?mail|sms|text(?:\s+messages?)?|pagerduty|opsgenie|microsoft\s+teams|teams|discord|whatsapp|telegram|signal|webhooks?|push(?:\s+notifications?)?|phone)(?:\s+(?:channel|alerts?|notifications?|messages?))?$/i;

/** Words that end a value: what follows says why, when or instead of what. */
const VALUE_STOPS = new Set(['of', 'than', 'instead', 'rather', 'over', 'for', 'to', 'from', 'whenever', 'when', 'because', 'so', 'since', 'in', 'on', 'at', 'into', 'with', 'if', 'about', 'every', 'each', 'as', 'via', 'through', 'by',
  'next', 'this', 'last', 'today', 'tomorrow', 'soon', 'asap', 'later', 'right', 'going', 'directly', 'mostly', 'only',
]);

function readValue(rest: string): string | null {
  const { value } = readPhrase(rest, { maxWords: 6, allowLists: false, stopAt: VALUE_STOPS });
  const bare = withoutDeterminers(value.replace(/^(?:your|their|its)\s+/i, '')).replace(/^(?:an?|the)\s+/i, '');
  return bare.length === 0 || bare.length > 60 ? null : bare;
}

function isIntegration(value: string): boolean {
  return value.toLowerCase().split(/\s+/).some((w) => INTEGRATION_NOUNS.has(w)) || INTEGRATION_PAIRS.test(value);
}

/** The value through its last integration word: "REST API next quarter" is the REST API. */
function throughIntegrationWord(value: string): string {
  const words = value.split(/\s+/);
  for (let end = words.length; end > 0; end--) {
    const head = words.slice(0, end).join(' ');
    if (INTEGRATION_NOUNS.has(words[end - 1].toLowerCase()) || new RegExp(`${INTEGRATION_PAIRS.source}$`, 'i').test(head)) return head;
  }
  return value;
}

/**
 * "Slack alerts", "a daily email digest", "Microsoft Teams messages"; a contact channel ("email",
 * "text messages") is a contact preference (profile-rules.ts), and "no alerts" or "fewer pings"
 * asks for less.
 */
function isNotification(value: string): boolean {
  if (/^(?:no|none|any|fewer|less|more|other)\b/i.test(value) || CONTACT_CHANNELS[value.toLowerCase()] !== undefined) return false;
  const words = value.split(/\s+/);
  return NOTIFICATION_HEADS.test(value) || (words.length > 1 && CHANNEL_HEADS.test(value) && words.slice(0, -1).some((w) => CHANNELS.test(w)));
}

function integrationFact(value: string, confidence: number): FactMatch {
  return keyedFact('integration', `integration:${keyPhrase(value)}`, 'integration', value, confidence);
}

function notificationFact(value: string, confidence: number): FactMatch {
  return keyedFact('notification', `notification:${keyPhrase(value)}`, 'notifications', value, confidence);
}

const INTEGRATION_CUES = ['integrate', 'integrating', 'use', 'uses', 'using', 'prefer', 'rather', 'built', 'building', 'go', 'stick', 'work', 'preferred'];
const NOTIFICATION_CUES = ['need', 'needs', 'want', 'wants', 'require', 'requires', 'expect', 'expects', 'like', 'prefer', 'rather', 'rely', 'depend'];

export const REQUIREMENT_RULES: FactRule[] = [
  {
    // "we want to integrate via the REST API", "our engineers would rather integrate through the
    // Python SDK": the verb says integration, so any named way in counts.
    id: 'integration.integrate',
    needs: [['integrate', 'integrating']],
    re: rx(String.raw`${SPEAKER}${LEAD}\s+integrat(?:e|ing)\s+(?:(?:with\s+)?(?:you|your\s+(?:product|platform|service|system|app|tool))\s+|(?:it|this|everything|things)\s+)?(?:through|via|using|over|by\s+way\s+of|with)\s+`),
    build: (_m, rest) => {
      const value = readValue(rest);
      return value === null || /^(?:it|this|that|them|you|us)\b/i.test(value) ? null : integrationFact(throughIntegrationWord(value), 0.8);
    },
  },
  {
    // "we'd rather use the Go client library", "I prefer the GraphQL endpoint", "we're using
    // your Zapier connector": a general verb, so the value must name an integration.
    id: 'integration.use',
    needs: [INTEGRATION_CUES],
    re: rx(String.raw`${SPEAKER}${LEAD}\s+(?:use|uses|using|prefer|prefers|preferring|go\s+with|stick\s+with|build\s+on|building\s+on|built\s+on|work\s+(?:with|through))\s+(?:using\s+)?`),
    build: (_m, rest) => {
      const value = readValue(rest);
      return value === null || !isIntegration(value) ? null : integrationFact(throughIntegrationWord(value), 0.75);
    },
  },
  {
    id: 'integration.preferred',
    needs: [['preferred', 'integration', 'method']],
    re: rx(String.raw`\b(?:our|my)\s+(?:preferred|chosen|main)\s+(?:integration|way\s+(?:in|to\s+integrate)|integration\s+(?:method|path|approach))\s+is\s+`),
    build: (_m, rest) => {
      const value = readValue(rest);
      return value === null ? null : integrationFact(value, 0.8);
    },
  },
  {
    // "we also need Slack alerts whenever a job finishes", "I'd like a daily email digest".
    id: 'notification.need',
    needs: [NOTIFICATION_CUES],
    re: rx(String.raw`${SPEAKER}${LEAD}\s+(?:need|needs|want|wants|require|requires|expect|expects|like|prefer|prefers|rather\s+(?:have|get)|rely\s+on|depend\s+on)\s+`),
    build: (_m, rest) => {
      const value = readValue(rest);
      return value === null || !isNotification(value) ? null : notificationFact(value, 0.8);
    },
  },
  {
    // "please notify us via Slack", "we'd like to be alerted by SMS", "send us alerts on Teams".
    id: 'notification.channel',
    needs: [['notify', 'notified', 'alert', 'alerted', 'alerts', 'ping', 'pinged', 'page', 'paged', 'notifications']],
    re: rx(String.raw`(?:\b(?:notify|alert|ping|page)\s+(?:us|me|our\s+team|the\s+team)|\bbe\s+(?:notified|alerted|pinged|paged)|\bsend\s+(?:us|me)\s+(?:the\s+|any\s+)?(?:alerts|notifications))\s+(?:by|via|through|over|on|in|with)\s+`),
    build: (_m, rest) => {
      const value = readValue(rest);
      return value === null || !CHANNEL_VALUE.test(value) ? null : notificationFact(value, 0.8);
    },
  },
];
