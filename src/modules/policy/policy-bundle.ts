import { isMap, isScalar, isSeq, LineCounter, Node, parseDocument, YAMLMap } from 'yaml';
import { RECEIPTS_SETTINGS, type ReceiptsSetting } from 'src/config/config.schema';
import { normaliseLabels } from 'src/modules/memories/sensitivity-labels';

/**
 * A tenant's policy bundle (docs/governance.md): parsed from YAML with the `yaml` package,
 * validated key by key so a refusal names the line at fault. Unknown keys are refused rather
 * than ignored: a misspelt `deny_label:` silently allowing everything is the failure a policy
 * must not have.
 */
export const POLICY_MODES = ['enforce', 'log_only'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];
/** The mode of a bundle that names none, and the one a receipt records when the tenant has no bundle. */
export const DEFAULT_POLICY_MODE: PolicyMode = 'enforce';
/** What a rule did to a memory: `denied` in enforce mode (left out), `would_deny` in log_only mode (kept). */
export const POLICY_ACTIONS = ['denied', 'would_deny'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];
/** Why a rule did not apply to the caller. */
export const SKIP_REASONS = ['caller_type_allowed'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface PolicyRule {
  id: string;
  deny_labels: string[];
  unless_caller_types: string[];
}

export interface PolicyBundle {
  version: 1;
  mode: PolicyMode;
  require_caller_identity: boolean;
  receipts: ReceiptsSetting | null;
  rules: PolicyRule[];
}

export class PolicyInvalid extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

/** Most rules a bundle holds: evaluation is rules × labels per memory on the context path. */
export const MAX_RULES = 200;
const RULE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CALLER_TYPE = /^[A-Za-z0-9._:-]{1,256}$/;
const TOP_KEYS = ['version', 'mode', 'require_caller_identity', 'receipts', 'rules'];
const RULE_KEYS = ['id', 'deny_labels', 'unless_caller_types', 'description'];

/** Parses and validates; throws PolicyInvalid with the 1-based line of the first problem. */
export function parsePolicyBundle(text: string): PolicyBundle {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const lineOf = (node: unknown, fallback = 1): number => {
    const range = (node as Node | null)?.range;
    return range ? lines.linePos(range[0]).line : fallback;
  };
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    throw new PolicyInvalid(lines.linePos(err.pos[0]).line, err.message.split('\n')[0]);
  }
  const root = doc.contents;
  if (!isMap(root)) throw new PolicyInvalid(lineOf(root), 'the policy bundle must be a mapping (version, mode, rules, ...)');

  const bundle: PolicyBundle = { version: 1, mode: DEFAULT_POLICY_MODE, require_caller_identity: false, receipts: null, rules: [] };
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const at = lineOf(pair.value, lineOf(pair.key));
    const value = isScalar(pair.value) ? pair.value.value : pair.value;
    switch (key) {
      case 'version':
        if (value !== 1) throw new PolicyInvalid(at, 'version must be 1');
        break;
      case 'mode':
        if (!POLICY_MODES.includes(value as PolicyMode)) throw new PolicyInvalid(at, `mode must be one of ${POLICY_MODES.join(', ')}`);
        bundle.mode = value as PolicyMode;
        break;
      case 'require_caller_identity':
        if (typeof value !== 'boolean') throw new PolicyInvalid(at, 'require_caller_identity must be true or false');
        bundle.require_caller_identity = value;
        break;
      case 'receipts':
        if (!RECEIPTS_SETTINGS.includes(value as ReceiptsSetting)) throw new PolicyInvalid(at, `receipts must be one of ${RECEIPTS_SETTINGS.join(', ')}`);
        bundle.receipts = value as ReceiptsSetting;
        break;
      case 'rules':
        bundle.rules = parseRules(pair.value, lineOf, at);
        break;
      default:
        throw new PolicyInvalid(lineOf(pair.key), `unknown key ${JSON.stringify(key)} (allowed: ${TOP_KEYS.join(', ')})`);
    }
  }
  return bundle;
}

function parseRules(node: unknown, lineOf: (n: unknown, fallback?: number) => number, at: number): PolicyRule[] {
  if (node === null || (isScalar(node) && node.value === null)) return [];
  if (!isSeq(node)) throw new PolicyInvalid(at, 'rules must be a list');
  if (node.items.length > MAX_RULES) throw new PolicyInvalid(lineOf(node.items[MAX_RULES]), `at most ${MAX_RULES} rules`);
  const ids = new Set<string>();
  return node.items.map((item) => {
    if (!isMap(item)) throw new PolicyInvalid(lineOf(item, at), 'each rule must be a mapping with id, deny_labels and unless_caller_types');
    const rule = parseRule(item, lineOf);
    if (ids.has(rule.id)) throw new PolicyInvalid(lineOf(item), `rule id ${JSON.stringify(rule.id)} is used twice`);
    ids.add(rule.id);
    return rule;
  });
}

function parseRule(item: YAMLMap, lineOf: (n: unknown, fallback?: number) => number): PolicyRule {
  const rule: Partial<PolicyRule> = { unless_caller_types: [] };
  for (const pair of item.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const at = lineOf(pair.value, lineOf(pair.key));
    if (key === 'id') {
      const id = isScalar(pair.value) ? pair.value.value : null;
      if (typeof id !== 'string' || !RULE_ID.test(id)) throw new PolicyInvalid(at, 'a rule id must be 1-128 characters of A-Z a-z 0-9 . _ : -');
      rule.id = id;
    } else if (key === 'deny_labels') {
      const labels = stringList(pair.value, at, 'deny_labels');
      const normalised = normaliseLabels(labels);
      if ('problems' in normalised) throw new PolicyInvalid(at, `deny_labels: ${normalised.problems[0].msg}`);
      if (normalised.labels.length === 0) throw new PolicyInvalid(at, 'deny_labels must name at least one label');
      rule.deny_labels = normalised.labels;
    } else if (key === 'unless_caller_types') {
      const types = stringList(pair.value, at, 'unless_caller_types');
      const bad = types.find((t) => !CALLER_TYPE.test(t));
      if (bad !== undefined) throw new PolicyInvalid(at, 'unless_caller_types: each caller type must be 1-256 characters of A-Z a-z 0-9 . _ : -');
      rule.unless_caller_types = [...new Set(types)];
    } else if (key !== 'description') {
      throw new PolicyInvalid(lineOf(pair.key), `unknown rule key ${JSON.stringify(key)} (allowed: ${RULE_KEYS.join(', ')})`);
    }
  }
  if (rule.id === undefined) throw new PolicyInvalid(lineOf(item), 'a rule needs an id');
  if (rule.deny_labels === undefined) throw new PolicyInvalid(lineOf(item), `rule ${rule.id} needs deny_labels`);
  return rule as PolicyRule;
}

function stringList(node: unknown, at: number, name: string): string[] {
  if (!isSeq(node)) throw new PolicyInvalid(at, `${name} must be a list of strings`);
  return node.items.map((item) => {
    const value = isScalar(item) ? item.value : null;
    if (typeof value !== 'string') throw new PolicyInvalid(at, `${name} must be a list of strings`);
    return value;
  });
}

/** The caller as a context or handoff request names it. */
export interface Caller {
  caller_id: string | null;
  caller_type: string | null;
}

/** One denial, as listed in a receipt's `policy.filters_applied`. */
export interface PolicyDenial {
  rule_id: string;
  memory_id: string;
  labels: string[];
  action: PolicyAction;
}

/** A rule that did not apply to this caller, as listed in `policy.filters_skipped`. */
export interface SkippedRule {
  rule_id: string;
  reason: SkipReason;
}

/** Rules that do not apply to the caller (its type is listed as an exception). */
export function skippedRules(bundle: PolicyBundle, caller: Caller): SkippedRule[] {
  return bundle.rules
    .filter((r) => caller.caller_type !== null && r.unless_caller_types.includes(caller.caller_type))
    .map((r) => ({ rule_id: r.id, reason: 'caller_type_allowed' }));
}

/**
 * Applies the bundle to memories: a memory carrying any of a rule's labels is denied unless the
 * caller's type is listed; untagged memories always pass. Returns the memories to keep (all of
 * them in log_only mode) and one denial per (memory, first matching rule).
 */
export function applyPolicy<T extends { id: string; sensitivity_labels?: string[] | null }>(
  bundle: PolicyBundle,
  caller: Caller,
  memories: readonly T[],
): { kept: T[]; denials: PolicyDenial[] } {
  const rules = bundle.rules.filter((r) => caller.caller_type === null || !r.unless_caller_types.includes(caller.caller_type));
  const action: PolicyAction = bundle.mode === 'enforce' ? 'denied' : 'would_deny';
  const kept: T[] = [];
  const denials: PolicyDenial[] = [];
  for (const memory of memories) {
    const labels = memory.sensitivity_labels ?? [];
    const rule = labels.length === 0 ? undefined : rules.find((r) => r.deny_labels.some((l) => labels.includes(l)));
    if (rule === undefined) {
      kept.push(memory);
      continue;
    }
    denials.push({ rule_id: rule.id, memory_id: memory.id, labels: rule.deny_labels.filter((l) => labels.includes(l)), action });
    if (action === 'would_deny') kept.push(memory);
  }
  return { kept, denials };
}
