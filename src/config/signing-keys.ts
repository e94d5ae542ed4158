/** Receipt signing keys by id and the id new signatures use; no keys = signing off. */
export interface SigningKeys {
  activeKeyId: string | null;
  keys: ReadonlyMap<string, Buffer>;
}

/** A key id: what appears on receipts, so nothing secret-looking and nothing to escape. */
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Shortest accepted secret: an HMAC key much shorter than its 32-byte output is guessable. */
export const MIN_SECRET_CHARS = 16;

/**
 * Parses `kid=secret,kid2=secret2` and the active id. Problems never quote a secret. With one
 * key and no active id, that key is active.
 */
export function parseSigningKeys(raw: string, activeId: string): SigningKeys | { problems: string[] } {
  const problems: string[] = [];
  const keys = new Map<string, Buffer>();
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const kid = eq > 0 ? part.slice(0, eq).trim() : '';
    const secret = eq > 0 ? part.slice(eq + 1).trim() : '';
    if (!KEY_ID.test(kid)) {
      problems.push('SERVICE_RECEIPT_SIGNING_KEYS must be kid=secret pairs separated by commas; each kid 1-64 characters of A-Z a-z 0-9 . _ -');
      continue;
    }
    if (secret.length < MIN_SECRET_CHARS) problems.push(`SERVICE_RECEIPT_SIGNING_KEYS: the secret of key ${kid} must be at least ${MIN_SECRET_CHARS} characters`);
    if (keys.has(kid)) problems.push(`SERVICE_RECEIPT_SIGNING_KEYS: key ${kid} is listed twice`);
    keys.set(kid, Buffer.from(secret, 'utf8'));
  }
  let active: string | null = activeId.trim() === '' ? null : activeId.trim();
  if (active === null && keys.size === 1) active = [...keys.keys()][0];
  if (active === null && keys.size > 1) problems.push('SERVICE_RECEIPT_SIGNING_KEY_ID must name the key that signs new receipts when several keys are configured');
  if (active !== null && !keys.has(active)) problems.push(`SERVICE_RECEIPT_SIGNING_KEY_ID ${JSON.stringify(active.slice(0, 64))} is not one of the ids in SERVICE_RECEIPT_SIGNING_KEYS`);
  if (problems.length > 0) return { problems: [...new Set(problems)] };
  return { activeKeyId: active, keys };
}

