import { AppError } from 'src/common/errors/app-error';
import { ErrorCode } from 'src/common/errors/error-codes';
import { decodeCursor, decodeJsonCursor, encodeCursor, encodeJsonCursor, isUtcMicros, isUuid } from './page-cursor';

const pair = (value: unknown) => (Array.isArray(value) && value.length === 2 && isUtcMicros(value[0]) && isUuid(value[1]) ? { at: value[0], id: value[1] } : null);

function rejection(decode: () => unknown): unknown {
  try {
    decode();
  } catch (err) {
    return err instanceof AppError ? { code: err.code, details: err.details } : err;
  }
  return 'accepted';
}

describe('page cursors', () => {
  const at = '2026-01-02T03:04:05.000006Z';
  const id = '0b0e8c1a-6a43-4a8e-9d7b-1f2e3d4c5b6a';

  it('gives back the position it encoded', () => {
    expect(decodeJsonCursor(encodeJsonCursor([at, id]), pair)).toEqual({ at, id });
    expect(decodeCursor(encodeCursor('01ARZ3NDEKTSV4RRFFQ69G5FAV'), (text) => text)).toBe('01ARZ3NDEKTSV4RRFFQ69G5FAV');
  });

  it('answers a cursor it did not write with a 422 naming the cursor query parameter', () => {
    const expected = { code: ErrorCode.ValidationError, details: [{ type: 'value_error', loc: ['query', 'cursor'], msg: 'cursor must be a next_cursor value' }] };
    for (const cursor of ['not base64!', encodeCursor('{"a":'), encodeJsonCursor({}), encodeJsonCursor(['yesterday', id]), encodeJsonCursor([at, 'x'])]) {
      expect(rejection(() => decodeJsonCursor(cursor, pair))).toEqual(expected);
    }
    expect(rejection(() => decodeCursor(encodeCursor('x'), () => null))).toEqual(expected);
  });

  it('takes only real instants with microseconds and UUIDs as positions', () => {
    expect(isUtcMicros(at)).toBe(true);
    expect(isUtcMicros('2026-13-02T03:04:05.000006Z')).toBe(false);
    expect(isUtcMicros('2026-01-02T03:04:05.000Z')).toBe(false);
    expect(isUtcMicros(1)).toBe(false);
    expect(isUuid(id.toUpperCase())).toBe(true);
    expect(isUuid(`${id}0`)).toBe(false);
  });
});
