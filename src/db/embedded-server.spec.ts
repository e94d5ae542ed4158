import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './data-source';
import { LOCK_FILE } from './data-dir-lock';
import { startEmbeddedServer } from './embedded-server';

jest.setTimeout(120_000);

describe('the embedded engine on its own thread', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'embedded-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the event loop free while a long statement runs, and keeps data across close and reopen', async () => {
    const db = await openDatabase({ databaseUrl: null, dataDir: dir, databasePoolSize: 1 });
    try {
      await db.dataSource.query('CREATE TABLE kept (v text)');
      await db.dataSource.query("INSERT INTO kept VALUES ('before close')");

      // A statement that keeps PGlite busy for a good while. On the service's own thread the
      // event loop would not turn until it finished; on the engine's thread timers keep firing.
      let ticks = 0;
      let longestGap = 0;
      let last = Date.now();
      const timer = setInterval(() => {
        const now = Date.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
        ticks++;
      }, 10);
      const started = Date.now();
      const [row] = await db.dataSource.query('SELECT count(*)::int AS n FROM generate_series(1, 3000000) g WHERE md5(g::text) LIKE $1', ['0%']);
      const took = Date.now() - started;
      clearInterval(timer);
      expect(row.n).toBeGreaterThan(150_000);
      expect(took).toBeGreaterThan(300);
      expect(ticks).toBeGreaterThan(took / 10 / 4);
      expect(longestGap).toBeLessThan(Math.min(250, took / 2));
    } finally {
      await db.close();
    }
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    const again = await openDatabase({ databaseUrl: null, dataDir: dir, databasePoolSize: 1 });
    try {
      expect(await again.dataSource.query('SELECT v FROM kept')).toEqual([{ v: 'before close' }]);
    } finally {
      await again.close();
    }
  });

  it('rejects with the engine\'s reason when the database cannot open', async () => {
    // A file where the data directory should be: PGlite cannot create its cluster there.
    const blocked = join(dir, 'not-a-directory');
    writeFileSync(blocked, 'x');
    const opening = startEmbeddedServer({ dataDir: blocked, socketPath: join(dir, 's.sock'), onUnexpectedExit: () => undefined, startTimeoutMs: 60_000 });
    // The engine's own reason (an Emscripten ErrnoError, which has no message), not "[object Object]".
    await expect(opening).rejects.toThrow(`The embedded database in ${blocked} could not open: ErrnoError`);
    await expect(opening).rejects.not.toThrow('[object Object]');
  });

  describe('the wire protocol, spoken directly to the socket', () => {
    let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
    let conn: RawConnection;
    beforeEach(async () => {
      server = await startEmbeddedServer({ dataDir: join(dir, 'data'), socketPath: join(dir, 's.sock'), onUnexpectedExit: () => undefined });
      conn = await RawConnection.open(join(dir, 's.sock'));
    });
    afterEach(async () => {
      conn.close();
      await server.stop();
    });

    it('answers a pipeline of parameterised queries in order, in one write, an error skipping only to its Sync', async () => {
      const queries = Array.from({ length: 40 }, (_, i) => (i === 17 ? extendedQuery('SELECT 1 / $1::int AS v', ['0']) : extendedQuery('SELECT $1::int * 2 AS v', [String(i)])));
      const answers = await conn.send(Buffer.concat(queries), 40);
      expect(answers.map((a) => a.error ?? a.rows[0][0])).toEqual(Array.from({ length: 40 }, (_, i) => (i === 17 ? 'division by zero' : String(i * 2))));
      // The stock handler wrote each message's answer on its own (200 writes here); every
      // complete message a read delivers now goes to the database in one call and back in one write.
      expect(conn.reads).toBe(1);
    });

    it('puts a message that arrives in pieces back together, and streams a large result', async () => {
      const text = 'é'.repeat(150_000);
      const query = extendedQuery('SELECT length($1::text) AS n', [text]);
      const pieces = [query.subarray(0, 3), query.subarray(3, 70_000), query.subarray(70_000)];
      const [one] = await conn.send(pieces, 1);
      expect(one.rows).toEqual([['150000']]);

      const [big] = await conn.send(extendedQuery("SELECT repeat('x', 1000) AS v FROM generate_series(1, 300)", []), 1);
      expect(big.rows).toHaveLength(300);
      expect(big.rows.every((r) => r[0] === 'x'.repeat(1000))).toBe(true);
    });
  });
});

/** One query of the extended protocol: Parse, Bind, Describe, Execute, Sync, as the pg driver sends it. */
function extendedQuery(sql: string, params: string[]): Buffer {
  const message = (type: string, body: Buffer) => {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  };
  const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');
  const int16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    return b;
  };
  const values = params.map((p) => {
    const bytes = Buffer.from(p, 'utf8');
    const len = Buffer.alloc(4);
    len.writeInt32BE(bytes.length);
    return Buffer.concat([len, bytes]);
  });
  return Buffer.concat([
    message('P', Buffer.concat([cstr(''), cstr(sql), int16(0)])),
    message('B', Buffer.concat([cstr(''), cstr(''), int16(0), int16(params.length), ...values, int16(0)])),
    message('D', Buffer.concat([Buffer.from('P'), cstr('')])),
    message('E', Buffer.concat([cstr(''), Buffer.alloc(4)])),
    message('S', Buffer.alloc(0)),
  ]);
}

interface Answer {
  rows: string[][];
  error: string | null;
}

/** A client of the wire protocol that counts the reads its answers took. */
class RawConnection {
  reads = 0;
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.reads++;
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
  }

  static async open(path: string): Promise<RawConnection> {
    const socket = connect(path);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const conn = new RawConnection(socket);
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0', 'utf8');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196608, 4);
    await conn.send(Buffer.concat([startup, params]), 1);
    return conn;
  }

  /** Writes the bytes (each piece its own write, 20 ms apart) and reads until `syncs` ReadyForQuery messages. */
  async send(bytes: Buffer | Buffer[], syncs: number): Promise<Answer[]> {
    this.reads = 0;
    const pieces = Array.isArray(bytes) ? bytes : [bytes];
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      this.socket.write(piece);
    }
    const answers: Answer[] = [];
    let current: Answer = { rows: [], error: null };
    while (answers.length < syncs) {
      const message = this.next();
      if (message === null) {
        await new Promise<void>((resolve) => (this.waiter = resolve));
        continue;
      }
      const { type, body } = message;
      if (type === 'D') {
        const row: string[] = [];
        for (let at = 2, i = 0; i < body.readInt16BE(0); i++) {
          const len = body.readInt32BE(at);
          row.push(body.subarray(at + 4, at + 4 + len).toString('utf8'));
          at += 4 + len;
        }
        current.rows.push(row);
      } else if (type === 'E') {
        const fields = body.toString('utf8').split('\0');
        current.error = fields.find((f) => f.startsWith('M'))!.slice(1);
      } else if (type === 'Z') {
        answers.push(current);
        current = { rows: [], error: null };
      }
    }
    return answers;
  }

  close(): void {
    this.socket.destroy();
  }

  private next(): { type: string; body: Buffer } | null {
    if (this.buffer.length < 5) return null;
    const length = this.buffer.readInt32BE(1);
    if (this.buffer.length < 1 + length) return null;
    const message = { type: String.fromCharCode(this.buffer[0]), body: this.buffer.subarray(5, 1 + length) };
    this.buffer = this.buffer.subarray(1 + length);
    return message;
  }
}
