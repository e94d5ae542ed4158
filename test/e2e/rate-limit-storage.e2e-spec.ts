import { createServer, connect, Server, Socket } from 'node:net';
import { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { DatabaseThrottlerStorage } from 'src/common/throttle/database-throttler.storage';
import { initializeWithRetry } from 'src/db/data-source';

/**
 * The distributed storage against the real test database, reached through a TCP relay that the
 * test can cut: cutting it is a genuine outage (refused and dropped connections), with no stub
 * standing in for the database.
 */
class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server!.close(r));
    this.server = null;
  }
}

const WINDOW_MS = 60_000;

describe('DatabaseThrottlerStorage', () => {
  const target = new URL(process.env.TEST_DB_URL!);
  const relay = new Relay({ host: target.hostname, port: Number(target.port || 5432) });
  const logs: { level: string; message: unknown }[] = [];
  const logger = { warn: (...a: unknown[]) => logs.push({ level: 'warn', message: a }), log: (...a: unknown[]) => logs.push({ level: 'log', message: a }) };
  let ds: DataSource;
  let storage: DatabaseThrottlerStorage;

  beforeAll(async () => {
    await relay.start();
    const url = new URL(target);
    url.port = String(relay.port);
    // idleTimeoutMillis 0: the embedded engine's single connection is kept, as the app does.
    ds = new DataSource({ type: 'postgres', url: url.toString(), extra: { max: 1, connectionTimeoutMillis: 2000, idleTimeoutMillis: 0 } });
    await initializeWithRetry(ds);
    await ds.query(`DELETE FROM rate_limits`);
    storage = new DatabaseThrottlerStorage(ds, logger);
  });
  afterAll(async () => {
    await ds.query(`DELETE FROM rate_limits`).catch(() => undefined);
    await ds.destroy();
    await relay.cut().catch(() => undefined);
  });

  it('counts hits atomically in one window and blocks past the limit', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => storage.increment('ip:atomic', WINDOW_MS, 8)));
    expect(results.map((r) => r.totalHits).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const r of results) {
      expect(r.isBlocked).toBe(r.totalHits > 8);
      expect(r.timeToExpire).toBeGreaterThanOrEqual(59);
      expect(r.timeToExpire).toBeLessThanOrEqual(60);
      if (r.isBlocked) expect(r.timeToBlockExpire).toBeGreaterThanOrEqual(59);
    }
    expect(logs).toEqual([]);
  });

  it('fails open while the database is unreachable, warns once per outage, and resumes after', async () => {
    await relay.cut();
    for (let i = 0; i < 5; i++) {
      expect(await storage.increment('ip:outage', WINDOW_MS, 1)).toEqual({ totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 });
    }
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);

    await relay.start();
    // The embedded engine may refuse a reconnect for a few ms while the old socket closes.
    let record = await storage.increment('ip:outage', WINDOW_MS, 1);
    for (let i = 0; i < 50 && record.totalHits === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      record = await storage.increment('ip:outage', WINDOW_MS, 1);
    }
    expect(record).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await storage.increment('ip:outage', WINDOW_MS, 1)).toMatchObject({ totalHits: 2, isBlocked: true });
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(logs.filter((l) => l.level === 'log')).toHaveLength(1);

    await relay.cut();
    await storage.increment('ip:outage', WINDOW_MS, 1);
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(2);
    await relay.start();
  });
});
