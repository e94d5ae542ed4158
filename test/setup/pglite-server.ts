import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketHandler, PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { useBatchedReads } from '../../src/db/pglite-batched-reads';

/**
 * An in-memory PGlite (with pgvector) served on a loopback port, one connection at a time, read
 * as the service's embedded engine reads (src/db/pglite-batched-reads.ts): the test suite's
 * stand-in for the embedded engine wherever a test needs a database URL (global set-up and
 * scratch databases). Here, beside the global set-up, because that runs without path mapping.
 */
export async function servePGlite(): Promise<{ url: string; stop(): Promise<void> }> {
  const db = await PGlite.create({ extensions: { vector } });
  useBatchedReads(PGLiteSocketHandler);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  return {
    url: `postgresql://postgres@127.0.0.1:${(server as unknown as { port: number }).port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
