import type { Session } from './api.js';

/**
 * The key lives in sessionStorage only: it survives a reload of this tab, is gone when the tab
 * closes, and is never put in a URL (so no history entry, referrer or access log holds it).
 */
const STORAGE_KEY = 'memory-console.session';

export function loadSession(storage: Storage = sessionStorage): Session | null {
  const raw = storage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as Partial<Session>;
    return typeof s.apiKey === 'string' ? { apiKey: s.apiKey, tenant: typeof s.tenant === 'string' && s.tenant ? s.tenant : null } : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null, storage: Storage = sessionStorage): void {
  if (session) storage.setItem(STORAGE_KEY, JSON.stringify(session));
  else storage.removeItem(STORAGE_KEY);
}
