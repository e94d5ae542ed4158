/**
 * Procedure extraction: standing instructions from the customer ("always CC my manager"),
 * step lists and "first … then …" how-tos from either side, and the agent's suggestions that
 * the customer confirmed fixed their problem.
 */
import { oneLine } from 'src/common/text/one-line';
import { keyPhrase, truncateAtWord } from './compiler-text';

export interface ProcedureMatch {
  content: string;
  summary: string;
  /** `instruction:…` or `procedure:<topic>` when the topic is explicit; null never overlaps. */
  key: string | null;
  confidence: number;
  metadata: Record<string, unknown>;
}

/** Verbs an instruction to a service is about; "don't quit" or "never give up" is advice, not one. */
const SERVICE_VERBS = String.raw`call|phone|ring|text|sms|message|e-?mail|mail|contact|reach|send|forward|cc|bcc|copy|include|loop|notify|remind|ping|schedule|book|charge|bill|invoice|ship|deliver|leave|use|address|refer|reply|respond|answer|write|share|disclose|post|auto-?renew|renew|cancel|store|save|mark|spell|escalate|transfer|knock|upgrade|downgrade|sign|enroll|subscribe|unsubscribe|add|remove`;

const LEAD_IN = String.raw`^(?:(?:ok(?:ay)?|also|and|oh|btw|by\s+the\s+way|one\s+more\s+thing|just\s+so\s+you\s+know|fyi|for\s+the\s+record|note|reminder|important|hey|hi)[,:!-]?\s+)*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+|kindly\s+)?`;

const INSTRUCTION_PATTERNS: RegExp[] = [
  new RegExp(`${LEAD_IN}(?:always|never|don'?t|do\\s+not|please\\s+don'?t|stop|avoid|only)\\s+(?:ever\\s+)?(${SERVICE_VERBS})(?:ing|s)?\\b`, 'i'),
  new RegExp(`${LEAD_IN}(?:always\\s+)?(cc|bcc|copy|loop\\s+in|include)\\s+(?:my|our)\\s+`, 'i'),
  new RegExp(`${LEAD_IN}make\\s+sure\\s+(?:to|you)\\s+(?:always\\s+|never\\s+)?(${SERVICE_VERBS})\\b`, 'i'),
  new RegExp(`\\b(call|contact|e-?mail|text|reach|message|phone)\\s+me\\s+(?:only\\s+)?(?:after|before|between|during|in\\s+the\\s+(?:morning|afternoon|evening)|on\\s+(?:weekdays|weekends))\\b`, 'i'),
  new RegExp(`\\bi(?:'d|\\s+would)\\s+(?:prefer|rather|like)\\s+(?:it\\s+)?(?:if\\s+)?(?:that\\s+)?(?:for\\s+)?you\\s+(?:to\\s+)?(?:(?:didn't|did\\s+not|don't|not|never|always|only)\\s+)?(${SERVICE_VERBS})\\b`, 'i'),
  new RegExp(`${LEAD_IN}(send|forward|e-?mail|mail|ship|deliver)\\s+(?:all|any|every|future)\\s+(?:of\\s+)?(?:my\\s+|our\\s+|the\\s+)?(?:[\\w-]+\\s+){0,2}?(?:invoices?|receipts?|bills?|statements?|reports?|updates?|packages?|orders?|notifications?|documents?|correspondence)\\s+(?:to|at)\\b`, 'i'),
  new RegExp(`\\b(?:from\\s+now\\s+on|going\\s+forward|in\\s+(?:the\\s+)?future|moving\\s+forward|for\\s+future\\s+reference|every\\s+time\\s+you|whenever\\s+you)\\b.*\\b(${SERVICE_VERBS})\\b`, 'i'),
];

/** The overlap key of an instruction: what it governs, so a newer rule on the same thing wins. */
function instructionKey(verb: string, sentence: string): string | null {
  const v = verb.toLowerCase().replace(/\s+/g, ' ');
  if (/^(?:call|phone|ring)$/.test(v)) return 'instruction:contact:call';
  if (/^(?:text|sms|message)$/.test(v)) return 'instruction:contact:text';
  if (/^(?:e-?mail|mail)$/.test(v) && /\bme\b/i.test(sentence)) return 'instruction:contact:email';
  if (/^(?:contact|reach)$/.test(v)) return 'instruction:contact:any';
  if (/^(?:cc|bcc|copy|loop in|include)$/.test(v)) {
    const who = /\b(?:my|our)\s+([\p{L}-]+)/iu.exec(sentence);
    return who ? `instruction:cc:${keyPhrase(who[1])}` : null;
  }
  if (/^(?:charge|bill|invoice|renew|auto-?renew)$/.test(v)) return 'instruction:billing';
  if (/^(?:ship|deliver|leave|knock)$/.test(v)) return 'instruction:delivery';
  if (/^(?:send|forward|e-?mail|mail)$/.test(v)) {
    const what = /\b(invoices?|receipts?|bills?|statements?|reports?|updates?|packages?|orders?|notifications?|documents?)\b/i.exec(sentence);
    return what ? `instruction:send:${keyPhrase(what[1])}` : null;
  }
  return null;
}

const QUESTION = /\?\s*$/;
const POLITE_REQUEST = /^(?:(?:ok(?:ay)?|also|and|hey|hi)[,!]?\s+)*(?:can|could|would|will)\s+you\s+/i;

const DIRECTIVE_START = new RegExp(`${LEAD_IN}(?:always|never|don'?t|do\\s+not|only|stop|avoid|make\\s+sure|from\\s+now\\s+on|going\\s+forward|cc|bcc|copy|loop|include|send|forward|${SERVICE_VERBS})\\b|^i(?:'d|\\s+would)\\s+(?:prefer|rather|like)\\b`, 'i');

/** Clause breaks inside one sentence that can hold two instructions ("don't call, and always CC …"). */
const INSTRUCTION_BREAK = /\s*(?:;|,\s*(?:and\s+|but\s+)?(?=(?:please\s+)?(?:always|never|don'?t|do\s+not|only|also|and|from\s+now|going\s+forward|cc|copy|make\s+sure)\b)|\s+and\s+(?=(?:please\s+)?(?:always|never|don'?t|do\s+not|only)\b))\s*/i;

/**
 * The standing instructions the customer gives in one sentence. Content is the whole sentence,
 * in the customer's words; the summary names the one instruction.
 */
export function extractInstructions(sentence: string): ProcedureMatch[] {
  const text = oneLine(sentence);
  if (QUESTION.test(text) && !POLITE_REQUEST.test(text)) return [];
  const out: ProcedureMatch[] = [];
  const parts = text.split(INSTRUCTION_BREAK).slice(0, 6);
  // A later part inherits the first part's subject: "They … and always remind me" is no instruction.
  const directive = DIRECTIVE_START.test(parts[0]);
  for (const [i, part] of parts.entries()) {
    if (i > 0 && !directive && out.length === 0) break;
    const found = instructionIn(part, text);
    if (found !== null && !out.some((o) => o.key !== null && o.key === found.key)) out.push(found);
  }
  return out;
}

function instructionIn(part: string, sentence: string): ProcedureMatch | null {
  for (const re of INSTRUCTION_PATTERNS) {
    const m = re.exec(part);
    if (!m) continue;
    const strong = /\b(?:always|never|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|every\s+time|whenever)\b/i.test(part);
    const rule = part
      .replace(/^(?:(?:ok(?:ay)?|also|and|oh|btw|by the way|one more thing|just so you know|fyi|hey|hi)[,:!-]?\s+)*/i, '')
      .replace(/[.!?]+$/, '');
    return {
      content: sentence,
      summary: `instruction: ${truncateAtWord(rule.charAt(0).toLowerCase() + rule.slice(1), 120)}`,
      key: instructionKey(m[1], part),
      confidence: strong ? 0.85 : 0.75,
      metadata: { procedure_type: 'instruction' },
    };
  }
  return null;
}

/** Verbs that open a step ("Go to Settings", "Restart the router"). */
const STEP_VERBS = new Set(
  (
    'go open click tap select press choose enter type restart reboot clear delete remove uninstall reinstall ' +
    'install update upgrade downgrade log sign check ensure try turn switch toggle unplug plug hold wait navigate ' +
    'visit run set change reset disable enable copy paste download upload export import save add connect ' +
    'disconnect pair unpair scroll find search contact call email send submit use create follow verify confirm ' +
    'refresh reload close quit launch start stop allow grant accept approve review edit rename move drag drop ' +
    'attach fill complete return apply re-enter re-add sync back power charge replace insert tighten loosen ' +
    'preheat mix stir bake cook pour measure cut place put let take make keep leave write read note record test ' +
    'repeat wipe rinse dry remember avoid ask schedule book pay cancel restore generate regenerate scan point ' +
    'expand collapse right-click double-click long-press swipe hover head locate look grab pull push commit ' +
    'deploy configure specify adjust increase decrease lower raise forget rejoin re-pair log-in login logout ' +
    'relaunch reopen re-login re-install resend re-send print fold pick hit flip unlock lock tap'
  ).split(' '),
);

const STEP_PREFIX = /^(?:(?:then|next|now|first|finally|lastly|after\s+that|afterwards|and|also|optionally|once\s+done)[,:]?\s+)*(?:please\s+)?/i;

/** True when the text starts like an instruction ("Then go to …", "Make sure …", "If …, restart"). */
export function isImperative(text: string): boolean {
  const body = oneLine(text).replace(/^\*\*|\*\*/g, '').replace(STEP_PREFIX, '');
  const first = /^([\p{L}-]+)/u.exec(body)?.[1]?.toLowerCase();
  if (first === undefined) return false;
  if (STEP_VERBS.has(first)) return true;
  return /^if\b[^,]{1,80},\s*([\p{L}-]+)/iu.test(body) && STEP_VERBS.has(/,\s*([\p{L}-]+)/u.exec(body)?.[1]?.toLowerCase() ?? '');
}

const LIST_ITEM = /^\s*(?:(?:step\s*)?\d{1,2}\s*[.):-]|[-*•·▪►‣]|[a-h][.)])\s+(.+)$/i;

export interface StepList {
  intro: string | null;
  steps: string[];
  /** Index of the first list line; the text before it is the intro. */
  line: number;
}

/**
 * Numbered or bulleted lists of at least two steps, most of them imperative. A list of
 * features or prices ("- Pro: $20") is not a procedure.
 */
export function findStepLists(text: string, maxLists = 4): StepList[] {
  const lines = text.split('\n').slice(0, 400);
  const out: StepList[] = [];
  let i = 0;
  while (i < lines.length && out.length < maxLists) {
    if (!LIST_ITEM.test(lines[i])) {
      i++;
      continue;
    }
    const start = i;
    const steps: string[] = [];
    while (i < lines.length && (LIST_ITEM.test(lines[i]) || (lines[i].trim() === '' && LIST_ITEM.test(lines[i + 1] ?? '')))) {
      const m = LIST_ITEM.exec(lines[i]);
      if (m) steps.push(oneLine(m[1].replace(/\*\*/g, '')));
      i++;
    }
    const imperative = steps.filter(isImperative).length;
    if (steps.length >= 2 && imperative * 2 >= steps.length) {
      const before = lines
        .slice(0, start)
        .map((l) => l.trim())
        .filter((l) => l.length > 0);
      out.push({ intro: before.length > 0 ? before[before.length - 1] : null, steps: steps.slice(0, 20), line: start });
    }
  }
  return out;
}

/** The task a how-to is for: "To reset your password:" → "reset your password". */
export function howToTopic(text: string): string | null {
  const m =
    /\b(?:how\s+(?:do|can|should|would)\s+(?:i|you|we|one)|how\s+to|steps?\s+(?:to|for)|in\s+order\s+to|(?:^|\s)to)\s+(.{3,80}?)(?:\s*[:?.!,]|\s+(?:follow|do|try|use)\s+(?:these|this|the\s+following)\b|$)/i.exec(
      oneLine(text),
    );
  if (!m) return null;
  const topic = m[1].replace(/^(?:please\s+)?/i, '').trim();
  return keyPhrase(topic).length > 0 && topic.split(/\s+/).length <= 10 ? topic : null;
}

/** Renders a how-to: "How to reset your password:\n1. …\n2. …", bounded to `maxChars`. */
export function renderSteps(heading: string | null, steps: string[], maxChars = 700): string {
  let out = heading === null ? '' : heading;
  for (let i = 0; i < steps.length; i++) {
    const line = `${i + 1}. ${truncateAtWord(steps[i], 200)}`;
    const next = out.length === 0 ? line : `${out}\n${line}`;
    if (next.length > maxChars && i >= 2) break;
    out = next;
  }
  return out;
}

/** "First clear the cache, then restart the app, and finally log in again." */
export function inlineSteps(sentence: string): string[] | null {
  const text = oneLine(sentence).replace(/[.!]+$/, '');
  const m = /\bfirst(?:ly)?,?\s+(.+?)\s*,?\s+\b(?:then|next|after\s+that|afterwards|and\s+then)\b,?\s+(.+)$/i.exec(text);
  if (!m || !isImperative(m[1])) return null;
  const rest = m[2].split(/\s*,?\s*\b(?:and\s+)?(?:then|next|after\s+that|afterwards|finally|lastly)\b,?\s*/i);
  const steps = [m[1], ...rest].map((s) => s.trim()).filter((s) => s.length > 0);
  return steps.length >= 2 && steps.filter(isImperative).length * 2 >= steps.length ? steps : null;
}

/** "To export your data, go to Settings > Privacy and click Export." */
export function toDoSteps(sentence: string): { topic: string; steps: string[] } | null {
  const m = /^(?:to|in\s+order\s+to)\s+([^,]{3,80}),\s*(.+)$/i.exec(oneLine(sentence).replace(/[.!]+$/, ''));
  if (!m || !isImperative(m[2])) return null;
  const steps = m[2].split(/\s*(?:,\s*(?:and\s+)?then|;|\band\s+then)\s+/i).filter((s) => s.trim().length > 0);
  return { topic: m[1].trim(), steps };
}

const COURTESY = /^(?:(?:ok(?:ay)?|alright|all\s+right|sure|great|got\s+it|no\s+problem|no\s+worries|i\s+see|understood|absolutely|of\s+course|thanks?(?:\s+you)?(?:\s+for\s+[^,.!]{1,40})?|sorry(?:\s+(?:about|for)\s+[^,.!]{1,40})?|hmm|right)[,.!]?\s+)*/i;
const SUGGESTION_LEAD = /^(?:(?:please|kindly)\s+)?(?:(?:can|could|would)\s+you\s+(?:please\s+)?(?:try\s+(?:to\s+)?)?|you\s+(?:can|could|should|may|might|need\s+to|will\s+need\s+to|'ll\s+need\s+to|have\s+to)\s+(?:try\s+(?:to\s+)?)?|(?:first|next|then|now|also|finally),?\s+|(?:i'?d\s+)?(?:recommend|suggest)\s+(?:that\s+you\s+)?|let'?s\s+(?:try\s+(?:to\s+)?)?)?/i;
/** Verbs of asking for information: "Could you confirm your email?" is no fix. */
const INFO_REQUEST = /^(?:tell|provide|share|confirm|give|send\s+(?:me|us)|let\s+me\s+know|describe|clarify|check\s+if\s+you)\b/i;

/** An agent sentence suggesting an action, cleaned to its imperative ("restart the router"). */
export function suggestion(sentence: string): string | null {
  const text = oneLine(sentence).replace(COURTESY, '');
  if (/^try\b/i.test(text)) return text.replace(/[.!?]+$/, '');
  const lead = SUGGESTION_LEAD.exec(text)?.[0] ?? '';
  const body = text.slice(lead.length);
  // "Could you try clearing the cache?": whatever follows "try" is the step.
  if (/\btry\s+(?:to\s+)?$/i.test(lead) && body.length > 0) return `try ${body.replace(/[.!?]+$/, '')}`;
  if (lead.length === 0 && QUESTION.test(text)) return null;
  if (INFO_REQUEST.test(body) || !isImperative(body)) return null;
  return body.replace(/[.!?]+$/, '');
}

const SUCCESS =
  /\b(?:that|this|it|which|the\s+\w+(?:\s+\w+)?)\s+(?:worked|works|did\s+it|did\s+the\s+trick|fixed\s+it|solved\s+it|helped|sorted\s+it)\b|\b(?:it'?s|it\s+is|everything'?s|everything\s+is|all|we'?re)\s+(?:working|fixed|good|sorted|back)(?:\s+now|\s+again)?\b|\bworks\s+(?:now|again|perfectly)\b|\bworking\s+(?:again|now)\b|\b(?:problem|issue)\s+(?:is\s+|has\s+been\s+)?(?:solved|resolved|fixed|gone)\b|\bfixed\s+it\b|\bthat\s+fixed\b/i;
const FAILURE =
  /(?:\bnot|n't|\bstill|\bnever|\bno\s+longer)\b[^.!?]{0,25}\b(?:work|works|working|worked|fix|fixed|help|helped|solve|solved)\b|\bsame\s+(?:error|problem|issue|thing)\b|\bno\s+luck\b|\bstill\s+(?:broken|failing|crashing|stuck|getting|seeing|happening)\b/i;

/** The customer says the last suggestion worked ("That worked, thanks!"). */
export function confirmsFix(text: string): boolean {
  const flat = oneLine(text);
  return SUCCESS.test(flat) && !FAILURE.test(flat);
}

/** The customer says it still fails ("Still not working"). */
export function reportsFailure(text: string): boolean {
  return FAILURE.test(oneLine(text));
}
