import { types } from 'pg';
import { prng } from '../../test/support/prng';
import { parseWordArray } from './arrays';

const pgParse = (types.getTypeParser as (oid: number, format: 'text') => unknown)(1009, 'text') as (text: string) => unknown;

function expectSameAsPg(text: string): void {
  expect([text, parseWordArray(text)]).toEqual([text, pgParse(text)]);
}

describe('parseWordArray', () => {
  it('reads plain elements, the NULL element and the empty array', () => {
    expect(parseWordArray('{da5c32e5-fdf9-4578-8acd-6747ac526c00,NULL}')).toEqual(['da5c32e5-fdf9-4578-8acd-6747ac526c00', null]);
    expect(parseWordArray('{}')).toEqual([]);
    expect(parseWordArray('{pii}')).toEqual(['pii']);
    expect(parseWordArray('{ünï,日本}')).toEqual(['ünï', '日本']);
  });

  it('agrees with pg’s parser on the shapes PostgreSQL sends, quoted, escaped, nested and bounded included', () => {
    // Each as `SELECT ARRAY[…]::text[]` prints it on PostgreSQL 15.
    for (const text of [
      '{"a b","NULL",NULL,"x\\"y","{","","back\\\\slash",plain,"null"}',
      '{da5c32e5-fdf9-4578-8acd-6747ac526c00,NULL}',
      '{}',
      '{{a,b},{c,d}}',
      '[2:3]={x,y}',
      '{ünï,日本}',
      '{"a,b",c}',
      '{"}"}',
      '{NULL}',
      '{NULLS,xNULL}',
    ]) {
      expectSameAsPg(text);
    }
  });

  it('agrees with pg’s parser on random arrays of words, uuids and quoted elements', () => {
    const random = prng(7);
    const rand = (n: number) => Math.floor(random() * n);
    const word = (): string => {
      switch (rand(6)) {
        case 0:
          return 'NULL';
        case 1:
          return `"${['a b', 'x,y', 'q\\"t', 'NULL', '', '{', '}', 'b\\\\s'][rand(8)]}"`;
        case 2:
          return crypto.randomUUID();
        default:
          return ['pii', 'finance', 'label-1', 'ä', 'x_y'][rand(5)];
      }
    };
    for (let k = 0; k < 2000; k++) {
      const n = rand(6);
      expectSameAsPg(`{${Array.from({ length: n }, word).join(',')}}`);
    }
  });
});
