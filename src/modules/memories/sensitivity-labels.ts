import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';

/** Limits of a memory's sensitivity labels (docs/governance.md). */
export const MAX_LABELS = 32;
export const MAX_LABEL_CHARS = 64;
const LABEL = /^[a-z0-9._:-]{1,64}$/;

/**
 * Trimmed, lowercased and de-duplicated (first occurrence kept), or the problems found, each
 * with the index of the offending label. Normalising first means `PII` and ` pii ` are one label.
 */
export function normaliseLabels(input: readonly unknown[]): { labels: string[] } | { problems: { index: number; msg: string }[] } {
  const problems: { index: number; msg: string }[] = [];
  const labels: string[] = [];
  input.forEach((value, index) => {
    if (typeof value !== 'string') {
      problems.push({ index, msg: 'a label must be a string' });
      return;
    }
    const label = value.trim().toLowerCase();
    if (!LABEL.test(label)) {
      problems.push({ index, msg: `a label must be 1-${MAX_LABEL_CHARS} characters of a-z 0-9 . _ : -` });
      return;
    }
    if (!labels.includes(label)) labels.push(label);
  });
  if (problems.length === 0 && labels.length > MAX_LABELS) problems.push({ index: MAX_LABELS, msg: `at most ${MAX_LABELS} labels` });
  return problems.length > 0 ? { problems } : { labels };
}

/** normaliseLabels, throwing a 422 whose details point at each bad label under `loc`. */
export function labelsOrThrow(input: readonly unknown[], loc: (string | number)[]): string[] {
  const result = normaliseLabels(input);
  if ('labels' in result) return result.labels;
  throw new AppError(
    ErrorCode.ValidationError,
    'Request validation failed',
    result.problems.map((p) => ({ type: 'value_error', loc: [...loc, p.index], msg: p.msg })),
  );
}
