import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  id: string;
  event: string;
  body: { event: string; timestamp: string; data: Record<string, unknown> };
}

/**
 * A webhook receiver on 127.0.0.1:0 that de-duplicates on X-Webhook-Event-Id, as the service
 * asks receivers to (delivery is at least once). `deliveries` counts every POST per id, so a
 * suite can tell a redelivery of one event (allowed) from two events for one change.
 */
export class WebhookReceiver {
  readonly events = new Map<string, ReceivedEvent>();
  readonly deliveries = new Map<string, number>();
  /** POSTs that arrived without an event id or with a body that is not the contract's shape. */
  readonly malformed: string[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = req.headers['x-webhook-event-id'];
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          const body = JSON.parse(text);
          if (typeof id !== 'string' || typeof body.event !== 'string' || typeof body.data !== 'object') throw new Error('shape');
          this.deliveries.set(id, (this.deliveries.get(id) ?? 0) + 1);
          if (!this.events.has(id)) this.events.set(id, { id, event: body.event, body });
        } catch {
          this.malformed.push(text.slice(0, 200));
        }
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this.url;
  }

  get redeliveries(): number {
    let n = 0;
    for (const c of this.deliveries.values()) n += c - 1;
    return n;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((r) => this.server!.close(r));
  }
}
