/**
 * Whether a group of single-episode requests must be written in an explicit transaction. A group
 * that is exactly one INSERT statement is atomic on its own, and BEGIN and COMMIT would be two
 * more round trips to the database per group. It is one statement when:
 * - webhooks are off (otherwise each episode's event row is a second statement that must commit
 *   with it);
 * - the group has one tenant (one INSERT per tenant);
 * - it is a single request, or no request carries an idempotency key. A key may conflict with a
 *   stored episode, which is then read back by a second statement; in a group that read-back must
 *   not fail after the INSERT committed, or the one-by-one retry (GroupCommit) would store the
 *   keyless rows of the group twice. A single request retries nothing, and without keys there is
 *   no read-back.
 * A failing row then fails the whole statement, nothing is stored, and the one-by-one retry is
 * as safe as after a rolled-back transaction.
 */
export function needsTransaction(webhooks: boolean, items: readonly { dto: { idempotency_key?: string | null } }[], tenants: number): boolean {
  if (webhooks || tenants > 1) return true;
  return items.length > 1 && items.some((i) => i.dto.idempotency_key != null);
}
