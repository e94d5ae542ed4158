import { ApiError } from '../api.js';

/** The service's error envelope as the API sent it, with the request id to quote in a report. */
export function ErrorView({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    const e = error.envelope;
    return (
      <div class="error" role="alert">
        <strong>{error.status ? `${error.status} ` : ''}{e.code}</strong>: {e.message}
        {e.details !== undefined && e.details !== null ? <pre class="details">{JSON.stringify(e.details, null, 2)}</pre> : null}
        {e.request_id ? <div class="muted">request id <code data-testid="request-id">{e.request_id}</code></div> : null}
      </div>
    );
  }
  return (
    <div class="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: preact.ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
