import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';

const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of the test's own: initdb into a temporary directory, its own port on
 * 127.0.0.1, started and stopped with pg_ctl. The machine's main server is never touched.
 * initdb refuses to run as root, so as root the commands run as the `postgres` user.
 */
export class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'memsvc-pg-'));
  port = 0;
  private readonly asRoot = process.getuid?.() === 0;

  private run(cmd: string, args: string[], timeoutMs = 60_000): string {
    const [file, argv] = this.asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args]] : [join(BIN, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8', timeout: timeoutMs });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  }

  private ownDir(): void {
    if (!this.asRoot) return;
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(this.dir, uid, gid);
  }

  async init(): Promise<void> {
    this.ownDir();
    this.port = await freePort();
    this.run('initdb', ['-D', join(this.dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await this.start();
    const c = new Client({ connectionString: this.url('postgres') });
    await c.connect();
    await c.query('CREATE DATABASE memsvc');
    await c.end();
  }

  /**
   * A hot standby streaming from this server: pg_basebackup with -R (standby.signal and
   * primary_conninfo) into its own temporary directory, started on its own port. initdb's
   * trust pg_hba already admits replication connections from 127.0.0.1. `-c fast`: an immediate
   * checkpoint instead of a spread one (minutes).
   */
  async startReplica(): Promise<PrivatePostgres> {
    const replica = new PrivatePostgres();
    replica.ownDir();
    replica.port = await freePort();
    replica.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-D', join(replica.dir, 'data'), '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await replica.start();
    return replica;
  }

  url(db = 'memsvc'): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${db}`;
  }

  async start(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-o', opts, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', 'start']);
  }

  /** `immediate` is a crash-like stop (connections cut, no checkpoint); `fast` a clean one. */
  async stop(mode: 'fast' | 'immediate' = 'immediate'): Promise<void> {
    this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', mode, '-w', '-t', '60', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.stop('immediate');
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
