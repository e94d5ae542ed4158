import { types } from 'pg';
import { parseTimestamptz } from './timestamps';

const pgParse = types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;

/** Same instant (or the same non-date answer) as pg's own parser. */
function expectSameAsPg(text: string): void {
  const ours = parseTimestamptz(text) as unknown;
  const theirs = pgParse(text) as unknown;
  if (theirs instanceof Date) {
    expect(ours).toBeInstanceOf(Date);
    expect([text, (ours as Date).getTime()]).toEqual([text, theirs.getTime()]);
  } else {
    expect([text, ours]).toEqual([text, theirs]);
  }
}

describe('parseTimestamptz', () => {
  it('reads the ISO text PostgreSQL sends, to the millisecond, in any offset', () => {
    expect(parseTimestamptz('2026-11-27 07:14:05.123456+00').toISOString()).toBe('2026-11-27T07:14:05.123Z');
    expect(parseTimestamptz('2026-11-27 07:14:05+00').toISOString()).toBe('2026-11-27T07:14:05.000Z');
    expect(parseTimestamptz('2026-11-27 12:44:05.5+05:30').toISOString()).toBe('2026-11-27T07:14:05.500Z');
    expect(parseTimestamptz('2026-11-27 03:43:50.07-03:30:15').toISOString()).toBe('2026-11-27T07:14:05.070Z');
    expect(parseTimestamptz('2026-01-01 00:30:00-01').toISOString()).toBe('2026-01-01T01:30:00.000Z');
  });

  it('agrees with pg’s parser on every shape PostgreSQL can send, the unusual ones included', () => {
    for (const text of [
      '2026-11-27 07:14:05.999999+00',
      '2026-11-27 07:14:05.0009+00',
      '2024-02-29 23:59:59.9+14',
      '1970-01-01 00:00:00+00',
      '1969-12-31 23:59:59.999-12',
      '0099-06-01 10:00:00+00',
      '0001-01-01 00:00:00+00 BC',
      '12345-01-01 00:00:00+00',
      'infinity',
      '-infinity',
      '2026-11-27 07:14:05.+00',
      '2026-11-27 07:14:05+0530',
      '2026-11-27 07:14:05+05:3',
      '2026-11-27T07:14:05Z',
    ]) {
      expectSameAsPg(text);
    }
  });

  it('agrees with pg’s parser on many random instants, offsets and fraction lengths', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let k = 0; k < 5000; k++) {
      const fraction = rand(3) === 0 ? '' : '.' + pad(rand(1_000_000), 6).slice(0, 1 + rand(6));
      const offH = rand(15);
      const offset = `${rand(2) ? '+' : '-'}${pad(offH, 2)}${rand(2) ? `:${pad(rand(60), 2)}` : ''}`;
      const text = `${pad(1900 + rand(200), 4)}-${pad(1 + rand(12), 2)}-${pad(1 + rand(28), 2)} ${pad(rand(24), 2)}:${pad(rand(60), 2)}:${pad(rand(60), 2)}${fraction}${offset}`;
      expectSameAsPg(text);
    }
  });
});
