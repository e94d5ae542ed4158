import { AppError } from 'src/common/errors/app-error';
import { asOfBound, parseAsOf, withClause } from './as-of';
import { compile, sql } from './sql';

describe('as-of helpers', () => {
  const now = new Date('2026-11-25T12:00:00.000Z');

  it('reads no as_of as a current read and a past time as that instant', () => {
    expect(parseAsOf(undefined, ['query', 'as_of'], now)).toBeNull();
    expect(parseAsOf('2026-11-25T11:59:59.999Z', ['query', 'as_of'], now)).toEqual(new Date('2026-11-25T11:59:59.999Z'));
    expect(parseAsOf('2026-11-25T12:00:00Z', ['query', 'as_of'], now)).toEqual(now);
  });

  it('refuses a future time with a validation error naming the field', () => {
    let thrown: unknown;
    try {
      parseAsOf('2026-11-25T12:00:00.001Z', ['body', 'as_of'], now);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).details).toEqual([expect.objectContaining({ loc: ['body', 'as_of'] })]);
  });

  it('covers the whole millisecond of the instant (the database keeps microseconds)', () => {
    expect(compile(asOfBound(now)).values).toEqual(['2026-11-25T12:00:00.001Z']);
  });

  it('writes no WITH for a current read', () => {
    expect(compile(withClause([])).text).toBe('');
    expect(compile(withClause([sql`a AS (SELECT 1)`, sql`b AS (SELECT 2)`])).text).toBe('WITH a AS (SELECT 1), b AS (SELECT 2)');
  });
});
