import { createServer, get, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { AppConfig } from 'src/config/app-config';
import { accessLogger, redactQuery } from './logging';

describe('redactQuery', () => {
  it('redacts api_key and q by the name the query parser reads, however it is spelled', () => {
    for (const name of ['api_key', 'api%5Fkey', 'api%5fkey', 'API_KEY', 'Api%5FKey', 'api_key%5B%5D', 'api_key[]', '%61pi_key', 'q', '%71']) {
      expect(redactQuery(`/v1/timeline?subject_id=s&${name}=s3cret&limit=5`)).toBe(`/v1/timeline?subject_id=s&${name}=[Redacted]&limit=5`);
    }
  });

  it('redacts every occurrence, a first parameter, a valueless one, and ; separators', () => {
    expect(redactQuery('/x?api_key=a&api_key=b')).toBe('/x?api_key=[Redacted]&api_key=[Redacted]');
    expect(redactQuery('/x?q=diagnosis')).toBe('/x?q=[Redacted]');
    expect(redactQuery('/x?api_key')).toBe('/x?api_key=[Redacted]');
    expect(redactQuery('/x?a=1;q=words')).toBe('/x?a=1;q=[Redacted]');
  });

  it('keeps other parameters, look-alike names and URLs without a query as sent', () => {
    expect(redactQuery('/v1/timeline?subject_id=api_key%3Dx&my_api_key=1&qq=2')).toBe('/v1/timeline?subject_id=api_key%3Dx&my_api_key=1&qq=2');
    expect(redactQuery('/v1/subjects/a%2Fb')).toBe('/v1/subjects/a%2Fb');
    expect(redactQuery('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=1');
  });
});

describe('accessLogger', () => {
  type Line = Record<string, unknown> & { msg: string; level: number };
  const servers: Server[] = [];
  afterAll(async () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  /** A server whose every request goes through the access logger, then `handle`; the lines it wrote. */
  async function serve(logLevel: string, handle: (req: IncomingMessage, res: ServerResponse) => void) {
    const lines: Line[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
        done();
      },
    });
    const log = accessLogger({ logLevel, debug: false } as AppConfig, stream);
    const server = createServer((req, res) => log(req, res, () => handle(req, res)));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
  }

  const call = (url: string) =>
    new Promise<number>((resolve, reject) => {
      get(url, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      }).on('error', reject);
    });
  /** Lines are written when the response ends, which the client may see first. */
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('writes one line per answered request: info for 2xx, warn for 4xx, error with an error for 5xx; none for probes', async () => {
    const { base, lines } = await serve('info', (req, res) => {
      res.statusCode = Number(new URL(req.url!, 'http://x').searchParams.get('status'));
      res.end('{}');
    });
    for (const status of [201, 404, 503]) await call(`${base}/v1/x?status=${status}&api_key=s3cret`);
    await call(`${base}/healthz?status=200`);
    await settle();
    expect(lines.map((l) => [l.level, l.msg, l.req, l.res])).toEqual([
      [30, 'request completed', { method: 'GET', url: '/v1/x?status=201&api_key=[Redacted]' }, { status: 201 }],
      [40, 'request completed', { method: 'GET', url: '/v1/x?status=404&api_key=[Redacted]' }, { status: 404 }],
      [50, 'request errored', { method: 'GET', url: '/v1/x?status=503&api_key=[Redacted]' }, { status: 503 }],
    ]);
    expect(lines.every((l) => typeof l.responseTime === 'number')).toBe(true);
    expect(lines[2].err).toMatchObject({ message: 'failed with status code 503' });
  });

  it('writes nothing below its level, and once however many ways a response ends', async () => {
    const { base, lines } = await serve('warn', (req, res) => {
      res.statusCode = req.url === '/bad' ? 400 : 200;
      res.end('{}');
      // A response that has finished also closes: one line, not two.
      res.emit('close');
    });
    await call(`${base}/good`);
    await call(`${base}/bad`);
    await settle();
    expect(lines.map((l) => [l.level, l.req])).toEqual([[40, { method: 'GET', url: '/bad' }]]);
  });

  it('logs a request whose client went away before the answer as aborted', async () => {
    const { base, lines } = await serve('info', () => undefined);
    await new Promise<void>((resolve) => {
      const req = request(`${base}/slow`, () => undefined);
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => req.destroy(), 50);
    });
    for (let i = 0; i < 50 && lines.length === 0; i++) await settle();
    expect(lines.map((l) => [l.level, l.msg, l.req])).toEqual([[30, 'request aborted', { method: 'GET', url: '/slow' }]]);
  });
});
