import { Client } from 'pg';
import { createTestApp, TestApp } from '../app-factory';

export interface SecondSessionHandle {
  readonly app: TestApp;
  /** Another PostgreSQL session on the app's database. */
  readonly other: Client;
}

/**
 * A test app and a second session on its database for the enclosing `describe`, opened before
 * its tests and closed after them: the second session stands for another process (a compile, a
 * health recomputation) whose transaction holds locks, paused between its statements, while the
 * app's request runs. PostgreSQL only (`*.postgres.e2e-spec.ts`): PGlite serves one connection.
 */
export function useAppWithSecondSession(): SecondSessionHandle {
  let app: TestApp | undefined;
  let other: Client | undefined;
  beforeAll(async () => {
    app = await createTestApp();
    other = new Client({ connectionString: process.env.TEST_DB_URL });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await app?.close();
  });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the app and the second session are opened in beforeAll; use them inside a hook or test');
    return value;
  };
  return {
    get app() {
      return opened(app);
    },
    get other() {
      return opened(other);
    },
  };
}

/** What `probe` finds, asked every 50 ms for up to `timeoutMs` (then an error naming `what`). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  for (let i = 0; i < timeoutMs / 50; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
