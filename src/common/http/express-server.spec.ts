import { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Application, type Request, type Response } from 'express';
import { ExpressServerAdapter, expressServerClasses } from './express-server';

interface Started {
  app: Application & { request: object; response: object };
  server: Server;
  base: string;
  /** Prototypes of each request and response as node:http built them, before Express saw them. */
  born: { req: object | null; res: object | null }[];
}

async function start(options: Record<string, unknown> = {}): Promise<Started> {
  const adapter = new ExpressServerAdapter();
  const app = adapter.getInstance<Started['app']>();
  app.get('/echo', (req: Request, res: Response) => {
    res.status(203).json({
      header: req.get('x-probe'),
      query: req.query.q,
      isRequest: req instanceof IncomingMessage,
      isResponse: res instanceof ServerResponse,
    });
  });
  app.post('/body', (req: Request, res: Response) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.type('text/plain').send(Buffer.concat(chunks).toString('utf8').toUpperCase()));
  });
  adapter.initHttpServer(options);
  const server = adapter.getHttpServer() as Server;
  const born: Started['born'] = [];
  // Runs before Express's handler (prepended): what node:http constructed, untouched.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    born.push({ req: Object.getPrototypeOf(req) as object, res: Object.getPrototypeOf(res) as object });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { app, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, born };
}

const stop = (s: Started) => new Promise<void>((r) => s.server.close(() => r()));

describe('ExpressServerAdapter', () => {
  it("gives the app prototypes that inherit Express's and node's, so requests have every method", () => {
    const app = express() as unknown as { request: object; response: object };
    const [request, response] = [app.request, app.response];
    const classes = expressServerClasses(app);
    expect(app.request).toBe(classes.IncomingMessage.prototype);
    expect(app.response).toBe(classes.ServerResponse.prototype);
    expect(Object.getPrototypeOf(app.request)).toBe(request);
    expect(Object.getPrototypeOf(app.response)).toBe(response);
    expect(classes.IncomingMessage.prototype).toBeInstanceOf(IncomingMessage);
    expect(classes.ServerResponse.prototype).toBeInstanceOf(ServerResponse);
  });

  it("builds requests and responses that already have the app's prototypes, so Express changes none", async () => {
    const s = await start();
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${s.base}/echo?q=${i}`, { headers: { 'x-probe': 'yes' } });
        expect(res.status).toBe(203);
        expect(await res.json()).toEqual({ header: 'yes', query: String(i), isRequest: true, isResponse: true });
      }
      expect(s.born).toHaveLength(3);
      for (const b of s.born) {
        expect(b.req).toBe(s.app.request);
        expect(b.res).toBe(s.app.response);
      }
    } finally {
      await stop(s);
    }
  });

  it('streams request bodies and answers unknown routes as Express does', async () => {
    const s = await start();
    try {
      const posted = await fetch(`${s.base}/body`, { method: 'POST', body: 'x'.repeat(200_000) });
      expect(posted.status).toBe(200);
      expect(await posted.text()).toBe('X'.repeat(200_000));
      const missing = await fetch(`${s.base}/nowhere`);
      expect(missing.status).toBe(404);
    } finally {
      await stop(s);
    }
  });

  it("keeps Nest's own server where it asks for one (connections it must force closed)", async () => {
    const s = await start({ forceCloseConnections: true });
    try {
      const res = await fetch(`${s.base}/echo?q=a`, { headers: { 'x-probe': 'p' } });
      expect(res.status).toBe(203);
      expect(s.born[0].req).toBe(IncomingMessage.prototype);
    } finally {
      await stop(s);
    }
  });
});
