import { types } from 'pg';

/** PostgreSQL's type oid for `timestamptz`. */
export const TIMESTAMPTZ_OID = 1184;

const defaultTimestamptz = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date;

const ZERO = 48;

/** The value of the `length` decimal digits at `at`, or -1 when one of them is not a digit. */
function digits(s: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `timestamptz` text as PostgreSQL sends it with the default DateStyle (ISO):
 * `2026-11-27 07:14:05.123456+00`, `+05:30`, `-03:30:15`. Why not pg's own parser
 * (postgres-date): it runs three regular expressions and a parseFloat per value, and a context
 * request reads a couple of thousand timestamps (its candidate rows), which made it one of the
 * larger single costs of the request in a CPU profile. Anything outside that one shape (BC dates,
 * years beyond 9999, `infinity`, another DateStyle) goes to pg's parser, so results never differ
 * (timestamps.spec.ts compares the two). Like pg's, sub-millisecond digits are truncated.
 */
export function parseTimestamptz(text: string): Date {
  const len = text.length;
  if (len < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) {
    return defaultTimestamptz(text);
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 100 || month < 1 || day < 1 || hour < 0 || minute < 0 || second < 0) return defaultTimestamptz(text);
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    // Fraction: the first three digits are milliseconds, the rest is dropped (as pg's parser does).
    let scale = 100;
    i++;
    const start = i;
    while (i < len) {
      const d = text.charCodeAt(i) - ZERO;
      if (d < 0 || d > 9) break;
      if (scale >= 1) ms += d * scale;
      scale /= 10;
      i++;
    }
    if (i === start) return defaultTimestamptz(text);
  }
  const sign = text.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return defaultTimestamptz(text);
  // Offset: HH, HH:MM or HH:MM:SS, and nothing after it.
  const rest = len - i - 1;
  if (rest !== 2 && rest !== 5 && rest !== 8) return defaultTimestamptz(text);
  const offH = digits(text, i + 1, 2);
  const offM = rest >= 5 && text.charCodeAt(i + 3) === 58 ? digits(text, i + 4, 2) : rest >= 5 ? -1 : 0;
  const offS = rest === 8 && text.charCodeAt(i + 6) === 58 ? digits(text, i + 7, 2) : rest === 8 ? -1 : 0;
  if (offH < 0 || offM < 0 || offS < 0) return defaultTimestamptz(text);
  const offsetMs = (sign === 45 ? -1 : 1) * ((offH * 60 + offM) * 60 + offS) * 1000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMs);
}
