import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from './harness/http-raw';
import { baseEnv, provisionDb, ServiceDb, ServiceProcess, startService } from './harness/service-process';
import { eventually, sleep } from './harness/settings';

/**
 * A client that reads an export at about 1 kB/s, against the built service started as
 * production starts it. The export is spooled to a temporary file in one short snapshot
 * transaction, then fed from the file at the reader's pace, so while the slow reader holds its
 * response open:
 * - on the embedded engine (one database connection) every other request is still answered;
 * - on PostgreSQL no session of the service stays inside a transaction (no snapshot held,
 *   nothing blocking vacuum, no pooled connection taken).
 * When the reader goes away the spool file is deleted. Before the spool, the export streamed
 * inside a REPEATABLE READ transaction at the client's pace: on the embedded engine every
 * other request queued behind it and failed.
 */
const EPISODES = 12;
const SUBJECT = 'slow-export';

function bigEpisode(i: number) {
  const words: string[] = [];
  let size = 0;
  for (let w = 0; size < 1_800_000; w++) {
    const word = `w${(i * 7919 + w * 104729) % 1000003}`;
    words.push(word);
    size += word.length + 1;
  }
  return { subject_id: SUBJECT, session_id: 's', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: `Episode ${i}. ${words.join(' ')}` }] } };
}

/** Opens GET `path` on a raw socket and reads it at about `bytesPerSecond`; the kernel's buffers fill and hold the server back. */
function slowReader(port: number, path: string, bytesPerSecond: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  let bytes = 0;
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
  });
  const timer = setInterval(() => {
    const chunk: Buffer | null = socket.read(bytesPerSecond) ?? socket.read();
    if (chunk) {
      bytes += chunk.length;
      if (received.length < 2048) received += chunk.toString('latin1');
    }
  }, 1000);
  return {
    head: () => received,
    bytes: () => bytes,
    closed: () => closed,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('a slow-reading export client (built service)', () => {
  let db: ServiceDb;
  let svc: ServiceProcess;
  const spool = mkdtempSync(join(tmpdir(), 'memsvc-slow-spool-'));
  const spoolFiles = () => readdirSync(spool).filter((d) => d.startsWith('memsvc-export-'));

  beforeAll(async () => {
    db = await provisionDb();
    // TMPDIR: the service's spool directory, private to this test so its files can be counted.
    svc = await startService(baseEnv({ ...db.env, SERVICE_LOG_LEVEL: 'warn', TMPDIR: spool }), { prodFlags: true });
    for (let i = 0; i < EPISODES; i++) {
      expect((await call(svc.base, 'POST', '/v1/episodes', bigEpisode(i), {}, 60_000)).status).toBe(201);
    }
    expect((await call(svc.base, 'POST', '/v1/episodes', { subject_id: 'other', session_id: 's', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: 'My name is Juno Marsh.' }] } })).status).toBe(201);
  }, 600_000);

  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
    rmSync(spool, { recursive: true, force: true });
  });

  it('answers other clients while the slow export is open, holds no transaction, and deletes the spool when the reader leaves', async () => {
    const reader = slowReader(svc.port, `/admin/export/${SUBJECT}`, 1024);
    try {
      await eventually('the slow reader gets the status line', 60_000, async () => reader.head().startsWith('HTTP/1.1 200'));
      expect(spoolFiles()).toHaveLength(1);
      const statuses: number[] = [];
      for (let round = 0; round < 3; round++) {
        statuses.push((await call(svc.base, 'POST', '/v1/episodes', { subject_id: 'other', session_id: 's', source: 'user', type: 'conversation', payload: { messages: [{ role: 'user', content: `Round ${round}: still waiting.` }] } }, {}, 30_000)).status);
        statuses.push((await call(svc.base, 'GET', '/v1/timeline?subject_id=other', undefined, {}, 30_000)).status);
        statuses.push((await call(svc.base, 'GET', '/v1/subjects/other/health', undefined, {}, 30_000)).status);
        statuses.push((await call(svc.base, 'POST', '/v1/memories/compile', { subject_id: 'other' }, {}, 30_000)).status);
        statuses.push((await call(svc.base, 'GET', '/admin/export/other', undefined, {}, 30_000)).status);
        statuses.push((await call(svc.base, 'GET', `/v1/subjects/${SUBJECT}/sla`, undefined, {}, 30_000)).status);
        await sleep(1000);
      }
      expect(statuses.filter((s) => s < 200 || s >= 300)).toEqual([]);
      if (db.engine === 'postgres') {
        // Every other request has finished: no session of the service may still be in a transaction.
        await eventually('no service session inside a transaction', 10_000, async () => {
          const rows = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
          );
          return rows[0].n === 0;
        });
      }
      // The reader is still on its first megabyte or so; the export is tens of megabytes.
      expect(reader.closed()).toBe(false);
      expect(reader.bytes()).toBeLessThan(EPISODES * 1_800_000);
      expect({ exit: svc.child.exitCode, signal: svc.child.signalCode }).toEqual({ exit: null, signal: null });
    } finally {
      reader.stop();
    }
    await eventually('the spool file is deleted once the reader is gone', 30_000, async () => spoolFiles().length === 0);
  }, 300_000);
});
