import { parseCliArgs } from './cli-args';

describe('parseCliArgs', () => {
  const opts = { id: { type: 'string', multiple: true }, days: { type: 'string' }, sql: { type: 'boolean' } } as const;

  it('reads positionals, repeated and boolean options in any order', () => {
    expect(parseCliArgs(['requeue', '--id', 'a', '--sql', 'x', '--id=b'], opts)).toEqual({ values: { id: ['a', 'b'], sql: true }, positionals: ['requeue', 'x'] });
  });

  it('takes a value starting with one dash, and a bare negative number as a positional', () => {
    expect(parseCliArgs(['prune', '--days', '-1'], opts).values.days).toBe('-1');
    expect(parseCliArgs(['downgrade', '-2', '--sql'], opts)).toEqual({ values: { sql: true }, positionals: ['downgrade', '-2'] });
  });

  it('names the option that is missing its value or unknown', () => {
    expect(() => parseCliArgs(['--days'], opts)).toThrow('--days needs a value');
    expect(() => parseCliArgs(['--days', '--sql'], opts)).toThrow('--days needs a value');
    expect(() => parseCliArgs(['--nope'], opts)).toThrow('unknown option "--nope"');
    expect(() => parseCliArgs(['--sql=yes'], opts)).toThrow('--sql takes no value');
  });
});
