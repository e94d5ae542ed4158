import { needsTransaction } from './ingest-group';

const keyless = { dto: {} };
const keyed = { dto: { idempotency_key: 'k' } };

describe('needsTransaction (group commit of single-episode requests)', () => {
  it('writes a one-statement group without BEGIN/COMMIT', () => {
    expect(needsTransaction(false, [keyless], 1)).toBe(false);
    expect(needsTransaction(false, [keyed], 1)).toBe(false);
    expect(needsTransaction(false, [keyless, keyless, { dto: { idempotency_key: null } }], 1)).toBe(false);
  });

  it('keeps the transaction when the group is more than one statement or its read-back could follow a commit', () => {
    // Event rows must commit with their episodes.
    expect(needsTransaction(true, [keyless], 1)).toBe(true);
    // One INSERT per tenant.
    expect(needsTransaction(false, [keyless, keyless], 2)).toBe(true);
    // A key can conflict and be read back by a second statement.
    expect(needsTransaction(false, [keyless, keyed], 1)).toBe(true);
  });
});
