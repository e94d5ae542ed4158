import { useState } from 'preact/hooks';
import type { Session } from './api.js';
import { ContextPage } from './pages/context.js';
import { OperatorPage } from './pages/operator.js';
import { ReceiptPage, ReceiptsPage } from './pages/receipts.js';
import { SignIn } from './pages/sign-in.js';
import { StatusPage } from './pages/status.js';
import { SubjectPage } from './pages/subject.js';
import { SubjectsPage } from './pages/subjects.js';
import { href, useRoute } from './route.js';
import { loadSession, saveSession } from './session.js';

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const route = useRoute();
  if (!session) {
    return (
      <SignIn
        onSignedIn={(s) => {
          saveSession(s);
          setSession(s);
        }}
      />
    );
  }
  const [section = 'subjects', id] = route.path;
  const nav = (to: string, label: string) => (
    <a href={href([to])} aria-current={section === to ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <strong>Memory console</strong>
        <nav aria-label="Main">
          {nav('subjects', 'Subjects')}
          {nav('context', 'Context inspector')}
          {nav('receipts', 'Receipts')}
          {nav('operator', 'Operator')}
          {nav('status', 'Status')}
        </nav>
        <span class="who">
          <TenantSwitch
            tenant={session.tenant}
            onChange={(tenant) => {
              const next = { ...session, tenant };
              saveSession(next);
              setSession(next);
            }}
          />
          <button
            type="button"
            onClick={() => {
              saveSession(null);
              setSession(null);
            }}
          >
            Sign out
          </button>
        </span>
      </header>
      <div id="content" tabIndex={-1}>
        {section === 'subjects' && id ? <SubjectPage session={session} subjectId={id} key={id} /> : null}
        {section === 'subjects' && !id ? <SubjectsPage session={session} /> : null}
        {section === 'context' ? <ContextPage session={session} initialSubject={route.query.get('subject') ?? ''} /> : null}
        {section === 'receipts' && id ? <ReceiptPage session={session} receiptId={id} key={id} /> : null}
        {section === 'operator' ? <OperatorPage session={session} /> : null}
        {section === 'status' ? <StatusPage session={session} /> : null}
        {section === 'receipts' && !id ? <ReceiptsPage session={session} subjectId={route.query.get('subject')} /> : null}
      </div>
    </>
  );
}

/**
 * The tenant sent as X-Tenant-ID, switchable without signing in again (a key bound to a tenant
 * needs none, and a foreign one is refused with 403 by the service).
 */
function TenantSwitch({ tenant, onChange }: { tenant: string | null; onChange: (tenant: string | null) => void }) {
  const [text, setText] = useState(tenant ?? '');
  return (
    <form
      aria-label="Tenant"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(text.trim() || null);
      }}
    >
      <label class="check">
        Tenant
        <input name="switch-tenant" value={text} placeholder="none" onInput={(e) => setText(e.currentTarget.value)} data-testid="tenant" />
      </label>
      <button type="submit" disabled={(text.trim() || null) === tenant}>
        Switch
      </button>
    </form>
  );
}
