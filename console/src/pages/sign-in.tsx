import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import type { Session } from '../api.js';
import { ErrorView } from '../components/error-view.js';

/**
 * Checks the key with one harmless read (GET /v1/subjects?limit=1). A 400 missing_tenant means
 * tenants are in use and this key is not bound to one: the tenant field then becomes required.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [apiKey, setApiKey] = useState('');
  const [tenant, setTenant] = useState('');
  const [needTenant, setNeedTenant] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const session: Session = { apiKey: apiKey.trim(), tenant: tenant.trim() || null };
    try {
      await api(session, (c) => c.listSubjects({ limit: 1 }));
      onSignedIn(session);
    } catch (err) {
      if (err instanceof ApiError && err.envelope.code === 'missing_tenant') setNeedTenant(true);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="signin">
      <h1>Memory Service console</h1>
      <p class="muted">Sign in with an API key. It is kept in this tab only (session storage) and sent as a header, never in a URL.</p>
      <form onSubmit={submit} autocomplete="off">
        <label>
          API key
          <input type="password" name="api-key" value={apiKey} onInput={(e) => setApiKey(e.currentTarget.value)} autoFocus required autocomplete="off" />
        </label>
        <label>
          Tenant {needTenant ? <strong>(required: this service uses tenants)</strong> : <span class="muted">(optional; X-Tenant-ID)</span>}
          <input type="text" name="tenant" value={tenant} onInput={(e) => setTenant(e.currentTarget.value)} required={needTenant} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {error ? <ErrorView error={error} /> : null}
    </main>
  );
}
