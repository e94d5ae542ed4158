import { types } from 'pg';
import { parseWordArray, WORD_ARRAY_OIDS } from './arrays';
import { parseTimestamptz, TIMESTAMPTZ_OID } from './timestamps';

/**
 * The pg driver's type parsers for this service's connections (pool option `types`): its own,
 * but `timestamptz` by parseTimestamptz and text, varchar and uuid arrays by parseWordArray.
 * Per connection rather than pg's global registry, so nothing else in the process that uses pg
 * is affected.
 */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    if (format !== 'binary') {
      if (oid === TIMESTAMPTZ_OID) return parseTimestamptz;
      if (WORD_ARRAY_OIDS.has(oid)) return parseWordArray;
    }
    return format === undefined ? types.getTypeParser(oid) : types.getTypeParser(oid, format);
  },
};
