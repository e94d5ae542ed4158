import { AppError } from 'src/common/errors/app-error';

/**
 * Page cursors (the timeline, receipts, the webhook listing) are opaque to clients: base64url of
 * the position the service wrote, JSON of the last row's keys or a bare id. Decoding accepts only
 * a position the page could have written, so a forged or mangled cursor is a 422 naming the
 * `cursor` query parameter, never a database error.
 */
export function encodeCursor(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The position `read` finds in the cursor's text, or the 422 when it finds none. */
export function decodeCursor<T>(cursor: string, read: (text: string) => T | null): T {
  const position = read(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (position === null) throw AppError.validation(['query', 'cursor'], 'cursor must be a next_cursor value');
  return position;
}

export function encodeJsonCursor(position: unknown): string {
  return encodeCursor(JSON.stringify(position));
}

/** As decodeCursor, for a cursor of JSON: `read` is given the parsed value (null when the text is not JSON). */
export function decodeJsonCursor<T>(cursor: string, read: (value: unknown) => T | null): T {
  return decodeCursor(cursor, (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = null;
    }
    return read(value);
  });
}

const UTC_MICROS_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A created_at position as keyset pages write it (utcMicros in src/common/db/sql.ts), and a real instant. */
export function isUtcMicros(value: unknown): value is string {
  return typeof value === 'string' && UTC_MICROS_TEXT.test(value) && !Number.isNaN(Date.parse(value));
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_TEXT.test(value);
}
