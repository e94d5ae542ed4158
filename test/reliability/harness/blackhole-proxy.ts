import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a database that can be told to stop answering without
 * closing anything: while frozen it reads nothing from either side and forwards nothing, as a
 * network partition or a stopped server looks to a client (no RST, no FIN). New connections are
 * accepted (the kernel would complete the handshake anyway) and stay silent too.
 */
export class BlackholeProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  port = 0;

  constructor(private readonly upstream: { host: string; port: number }) {}

  static forUrl(url: string): BlackholeProxy {
    const u = new URL(url);
    return new BlackholeProxy({ host: u.hostname, port: Number(u.port || 5432) });
  }

  /** `url` with its host and port replaced by this proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = new Socket();
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      const close = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      upstream.connect(this.upstream.port, this.upstream.host);
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.frozen) this.hold(pair);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops answering: bytes in flight stay where they are, connections stay open. */
  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) this.hold(pair);
  }

  thaw(): void {
    this.frozen = false;
    for (const [a, b] of this.pairs) {
      a.pipe(b);
      b.pipe(a);
      a.resume();
      b.resume();
    }
  }

  /** Connections currently open through the proxy. */
  get connections(): number {
    return this.pairs.size;
  }

  async stop(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private hold([a, b]: [Socket, Socket]): void {
    a.unpipe(b);
    b.unpipe(a);
    a.pause();
    b.pause();
  }
}
