import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who is calling, decided once per request by the authentication gate (docs/operations.md
 * "Security model"):
 * - `client`: the /v1 surface and MCP;
 * - `operator`: /admin, /ops and /metrics, any tenant.
 * The contract's single API_KEY (and open access when no key exists) holds both roles and no
 * tenant binding, exactly as before bound keys existed.
 */
export type Role = 'client' | 'operator';

export interface Principal {
  /** Id of a stored API key; null for the contract's API_KEY or open access. */
  keyId: string | null;
  roles: readonly Role[];
  /** The tenant a bound key is limited to; null = any (the tenant header decides). */
  tenantId: string | null;
}

export const FULL_ACCESS: Principal = Object.freeze({ keyId: null, roles: Object.freeze(['client', 'operator'] as Role[]), tenantId: null });

export const hasRole = (p: Principal, role: Role): boolean => p.roles.includes(role);

/** Looks stored keys up; implemented by the api-keys room, consumed by the gate. */
export interface KeyResolver {
  /** True while at least one stored key is active (then a key is required even without API_KEY); read fresh, never remembered. */
  keysInUse(): Promise<boolean>;
  /** The key's principal, or null when the token names no active key or its secret is wrong. */
  resolve(token: string): Promise<Principal | null>;
}

export const KEY_RESOLVER = Symbol('KEY_RESOLVER');

/** Hashing first gives equal-length inputs, so the comparison time says nothing about the key. */
export function keysMatch(given: string, expected: string | Buffer): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = typeof expected === 'string' ? keyDigest(expected) : expected;
  return timingSafeEqual(a, b);
}

/** The digest `keysMatch` compares; a key checked on every request (API_KEY) is hashed once, at start. */
export function keyDigest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/**
 * Which surface a path belongs to, decided on the path alone (before routing, so an unknown
 * route is judged like a known one). Express matches routes case-insensitively and ignores a
 * trailing slash, so this does too. Anything not public or operator is client surface: deny by
 * default, and the role guard checks again against the matched route's metadata.
 */
export type Surface = 'public' | 'operator' | 'client';

/** Probes: answer without a key (contract "Authentication"); the docs are mounted before the gate. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/health', '/readyz', '/ready']);
const OPERATOR_ROOTS: ReadonlySet<string> = new Set(['admin', 'ops', 'metrics']);

export function surfaceOf(path: string): Surface {
  const p = path.toLowerCase().replace(/\/+$/, '') || '/';
  if (PUBLIC_PATHS.has(p)) return 'public';
  const root = p.split('/').filter(Boolean)[0] ?? '';
  return OPERATOR_ROOTS.has(root) ? 'operator' : 'client';
}
