import { types } from 'pg';
import { parseWordArray } from './arrays';
import { PG_TYPES } from './pg-types';
import { parseTimestamptz } from './timestamps';

// pg's typings name only scalar types' oids; its registry holds the array types too.
const pgParser = types.getTypeParser as (oid: number, format?: 'text' | 'binary') => unknown;

describe('PG_TYPES', () => {
  it('parses timestamptz and text, varchar and uuid arrays by the service’s parsers, everything else by pg’s', () => {
    expect(PG_TYPES.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    for (const oid of [1009, 1015, 2951]) expect(PG_TYPES.getTypeParser(oid, 'text')).toBe(parseWordArray);
    expect(PG_TYPES.getTypeParser(2951)).toBe(parseWordArray);
    expect(PG_TYPES.getTypeParser(1114, 'text')).toBe(pgParser(1114, 'text'));
    expect(PG_TYPES.getTypeParser(23, 'text')).toBe(pgParser(23, 'text'));
    expect(PG_TYPES.getTypeParser(1007, 'text')).toBe(pgParser(1007, 'text'));
    expect(PG_TYPES.getTypeParser(1184, 'binary')).toBe(pgParser(1184, 'binary'));
    expect(PG_TYPES.getTypeParser(2951, 'binary')).toBe(pgParser(2951, 'binary'));
  });
});
