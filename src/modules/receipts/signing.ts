import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { SigningKeys } from 'src/config/signing-keys';

/**
 * Receipt signatures (docs/governance.md): HMAC-SHA256 over the RFC 8785 (JSON Canonicalization
 * Scheme) form of the receipt without its three signature fields. JCS comes from the
 * `canonicalize` package (by an author of RFC 8785) rather than hand code: number formatting
 * and key ordering by UTF-16 code units are exactly the parts a home-grown serialiser gets
 * subtly wrong, and a verifier in another language must reach the same bytes.
 */
export const SIGNATURE_ALGORITHM = 'hmac-sha256-canonical-v1';

export const SIGNATURE_FIELDS = ['receipt_signature', 'receipt_signature_key_id', 'receipt_signature_algorithm'] as const;

export interface Signature {
  signature: string;
  key_id: string;
  algorithm: typeof SIGNATURE_ALGORITHM;
}

export type VerifyReason = 'ok' | 'signature_mismatch' | 'no_signature' | 'key_unavailable' | 'unsupported_algorithm';

export interface Verdict {
  valid: boolean | null;
  key_id: string | null;
  algorithm: string | null;
  reason: VerifyReason;
}

/** The bytes that are signed: the JCS text of `body` minus any signature field. */
export function signingInput(body: Record<string, unknown>): string {
  const unsigned: Record<string, unknown> = { ...body };
  for (const field of SIGNATURE_FIELDS) delete unsigned[field];
  const text = canonicalize(unsigned);
  if (text === undefined) throw new Error('receipt body has no canonical JSON form');
  return text;
}

export function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/** Signs a receipt body with the active key, or null when signing is off. */
export function sign(body: Record<string, unknown>, keys: SigningKeys): Signature | null {
  // Canonicalizing a receipt of a few hundred entries costs milliseconds: not when unsigned.
  if (keys.activeKeyId === null) return null;
  return signText(signingInput(body), keys);
}

/** Signs any JSON value's JCS text (deletion receipts sign their certificate this way). */
export function signCanonical(value: Record<string, unknown>, keys: SigningKeys): Signature | null {
  return signText(canonicalize(value)!, keys);
}

function signText(text: string, keys: SigningKeys): Signature | null {
  if (keys.activeKeyId === null) return null;
  const key = keys.keys.get(keys.activeKeyId)!;
  return { signature: hmacHex(key, text), key_id: keys.activeKeyId, algorithm: SIGNATURE_ALGORITHM };
}

/**
 * The four verdicts. A key id that is no longer configured cannot be checked either way
 * (`valid: null`), which is what rotating a key out means; the comparison of MACs is
 * constant-time so a caller learns nothing from response timing.
 */
export function verify(body: Record<string, unknown>, keys: SigningKeys): Verdict {
  const signature = body.receipt_signature;
  const keyId = typeof body.receipt_signature_key_id === 'string' ? body.receipt_signature_key_id : null;
  const algorithm = typeof body.receipt_signature_algorithm === 'string' ? body.receipt_signature_algorithm : null;
  if (typeof signature !== 'string' || signature === '') return { valid: null, key_id: keyId, algorithm, reason: 'no_signature' };
  if (algorithm !== SIGNATURE_ALGORITHM) return { valid: null, key_id: keyId, algorithm, reason: 'unsupported_algorithm' };
  const key = keyId === null ? undefined : keys.keys.get(keyId);
  if (key === undefined) return { valid: null, key_id: keyId, algorithm, reason: 'key_unavailable' };
  const expected = Buffer.from(hmacHex(key, signingInput(body)), 'hex');
  // A malformed signature is still compared (against zeros) so that its answer takes as long.
  const wellFormed = /^[0-9a-f]{64}$/.test(signature);
  const given = wellFormed ? Buffer.from(signature, 'hex') : Buffer.alloc(expected.length);
  const valid = timingSafeEqual(expected, given) && wellFormed;
  return { valid, key_id: keyId, algorithm, reason: valid ? 'ok' : 'signature_mismatch' };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
