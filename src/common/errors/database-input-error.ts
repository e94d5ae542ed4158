import type { FieldProblem } from './app-error';
import { codePointLength } from 'src/common/http/text-length';

/**
 * SQLSTATEs that mean "this value does not fit the column": class 22 data exceptions a client's
 * input can cause. Validation should refuse such input first; this is the backstop, so a gap in
 * a DTO is a 422 naming the field instead of a 500 that clients retry forever. Other class 22
 * codes (division by zero, ...) stay 500: they are our bugs, not the client's input.
 */
const INPUT_SQLSTATES: Record<string, { type: string; msg: string }> = {
  '22001': { type: 'string_too_long', msg: 'value is longer than the database column allows' },
  '22003': { type: 'number_out_of_range', msg: 'number is out of the range the database column allows' },
  '22007': { type: 'invalid_datetime', msg: 'not a valid date/time' },
  '22008': { type: 'datetime_out_of_range', msg: 'date/time is out of range' },
  '22015': { type: 'interval_out_of_range', msg: 'interval is out of range' },
  '22021': { type: 'invalid_character', msg: 'contains a character the database cannot store' },
  '22P02': { type: 'invalid_format', msg: 'value has the wrong format for this field' },
  '22P03': { type: 'invalid_format', msg: 'value has the wrong format for this field' },
  '22P05': { type: 'invalid_character', msg: 'contains a character the database cannot store' },
};

/** The SQLSTATE of a driver error, looking through TypeORM's QueryFailedError. */
export function sqlState(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const { code, driverError } = e as Error & { code?: unknown; driverError?: { code?: unknown } };
  if (typeof code === 'string') return code;
  return typeof driverError?.code === 'string' ? driverError.code : undefined;
}

export function isDatabaseInputError(e: unknown): boolean {
  const state = sqlState(e);
  return state !== undefined && state in INPUT_SQLSTATES;
}

export interface RequestInputs {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** Bounds of the walk over a request's inputs (a body may be large: this runs on error only). */
const MAX_NODES = 5000;
const MAX_DEPTH = 16;

/**
 * The field a data exception is about, found by matching the server's message against the
 * request's inputs: the quoted value (`invalid input syntax for type uuid: "x"`), a string longer
 * than the column (`character varying(256)`), or a number past the integer range. Falls back to
 * the request part most likely at fault. The message itself is never echoed (it quotes data).
 */
export function databaseInputProblem(e: unknown, inputs: RequestInputs): FieldProblem {
  const state = sqlState(e) ?? '';
  const { type, msg } = INPUT_SQLSTATES[state] ?? { type: 'invalid_value', msg: 'value not accepted by the database' };
  const message = e instanceof Error ? e.message : '';
  const quoted = /: "(.*)"$/s.exec(message)?.[1] ?? /^value "(.*)" is out of range/s.exec(message)?.[1];
  const varcharMax = Number(/character varying\((\d+)\)/.exec(message)?.[1] ?? NaN);
  const matches = (leaf: unknown): boolean => {
    if (quoted !== undefined) return (typeof leaf === 'string' || typeof leaf === 'number') && String(leaf) === quoted;
    if (state === '22001') return typeof leaf === 'string' && codePointLength(leaf) > (Number.isFinite(varcharMax) ? varcharMax : 0);
    if (state === '22003') return isOutOfIntRange(leaf);
    return false;
  };
  const loc = findLeaf(inputs, matches) ?? fallbackLoc(inputs);
  return { type, loc, msg };
}

/** Beyond PostgreSQL's integer (a number, or a query string that spells one). */
function isOutOfIntRange(leaf: unknown): boolean {
  const n = typeof leaf === 'number' ? leaf : typeof leaf === 'string' && /^\s*[+-]?\d+(\.\d+)?(e\d+)?\s*$/i.test(leaf) ? Number(leaf) : NaN;
  return Number.isFinite(n) ? Math.abs(n) > 2_147_483_647 : typeof leaf === 'string' && /^\s*[+-]?\d{11,}\s*$/.test(leaf);
}

function findLeaf(inputs: RequestInputs, matches: (leaf: unknown) => boolean): (string | number)[] | null {
  const queue: { v: unknown; loc: (string | number)[] }[] = [
    { v: inputs.params, loc: ['path'] },
    { v: inputs.query, loc: ['query'] },
    { v: inputs.body, loc: ['body'] },
  ];
  // Breadth first (top-level fields first), by index; the queue never grows past MAX_NODES.
  for (let i = 0; i < queue.length; i++) {
    const { v, loc } = queue[i];
    if (v !== null && typeof v === 'object') {
      if (loc.length > MAX_DEPTH) continue;
      if (Array.isArray(v)) {
        for (let k = 0; k < v.length && queue.length < MAX_NODES; k++) queue.push({ v: v[k], loc: [...loc, k] });
      } else {
        for (const k in v) {
          if (queue.length >= MAX_NODES) break;
          if (Object.hasOwn(v, k)) queue.push({ v: (v as Record<string, unknown>)[k], loc: [...loc, k] });
        }
      }
    } else if (loc.length > 1 && matches(v)) {
      return loc;
    }
  }
  return null;
}

function fallbackLoc(inputs: RequestInputs): (string | number)[] {
  const nonEmpty = (v: unknown) => v !== null && typeof v === 'object' && Object.keys(v).length > 0;
  if (nonEmpty(inputs.body)) return ['body'];
  if (nonEmpty(inputs.query)) return ['query'];
  return ['path'];
}
