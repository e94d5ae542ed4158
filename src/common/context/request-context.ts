import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from 'src/common/auth/principal';
import { TenantScope } from 'src/common/db/tenant-scope';

export interface RequestState {
  requestId: string;
  /** Set by the tenant guard; null = unscoped (single-tenant mode). */
  tenantId: string | null;
  /** Set by the authentication gate; absent on public routes and outside HTTP (jobs, CLI). */
  principal?: Principal;
}

const storage = new AsyncLocalStorage<RequestState>();

/** Per-request (or per-job) state carried across async calls without injecting REQUEST. */
export const RequestContext = {
  run<T>(state: RequestState, fn: () => T): T {
    return storage.run(state, fn);
  },
  current(): RequestState | undefined {
    return storage.getStore();
  },
  get(): RequestState {
    const state = storage.getStore();
    if (!state) throw new Error('no request context: called outside a request or job');
    return state;
  },
};

/** What a controller hands to its service: who is asking and which rows they may touch. */
export interface Ctx {
  requestId: string;
  scope: TenantScope;
}

export function currentCtx(): Ctx {
  const state = RequestContext.get();
  return { requestId: state.requestId, scope: TenantScope.ofRequest(state.tenantId) };
}
