import { compile, join, raw, sql } from './sql';

describe('sql tag', () => {
  it('turns every interpolated value into a numbered parameter, nested fragments included', () => {
    const inner = sql`b = ${2}`;
    const q = compile(sql`SELECT * FROM t WHERE a = ${1} AND ${inner} AND c IN (${join([sql`${'x'}`, sql`${'y'}`])})`);
    expect(q.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 AND c IN ($3, $4)');
    expect(q.values).toEqual([1, 2, 'x', 'y']);
  });

  it('keeps hostile strings out of the SQL text', () => {
    const q = compile(sql`SELECT ${"'; DROP TABLE episodes; --"}`);
    expect(q.text).toBe('SELECT $1');
  });

  it('inlines raw text and handles an empty join', () => {
    expect(compile(sql`ORDER BY ${raw('created_at DESC')}${join([])}`).text).toBe('ORDER BY created_at DESC');
  });
});
