import type { ArgumentsHost } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter';

function host() {
  const res = {
    headersSent: false,
    statusCode: 0,
    body: undefined as unknown,
    headers: {} as Record<string, string>,
    getHeader: (k: string) => (k === 'X-Request-ID' ? 'rid-1' : undefined),
    setHeader(k: string, v: string) {
      this.headers[k] = v;
    },
    status(s: number) {
      this.statusCode = s;
      return this;
    },
    json(b: unknown) {
      this.body = b;
      return this;
    },
  };
  const h = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ method: 'GET', path: '/x' }) }) } as unknown as ArgumentsHost;
  return { res, h };
}

describe('AllExceptionsFilter', () => {
  const filter = new AllExceptionsFilter();
  jest.spyOn((filter as unknown as { logger: { warn: () => void; error: () => void } }).logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn((filter as unknown as { logger: { warn: () => void; error: () => void } }).logger, 'error').mockImplementation(() => undefined);

  it('answers an unreachable database with 503 service_unavailable and Retry-After, not 500', () => {
    const { res, h } = host();
    filter.catch(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), h);
    expect(res.statusCode).toBe(503);
    expect(res.body).toEqual({ error: { code: 'service_unavailable', message: 'Database unavailable; retry later.', details: null, request_id: 'rid-1' } });
    expect(res.headers['Retry-After']).toBe('1');
  });

  it('still answers an unknown error with 500 internal_error', () => {
    const { res, h } = host();
    filter.catch(new TypeError('boom'), h);
    expect(res.statusCode).toBe(500);
    expect((res.body as { error: { code: string } }).error.code).toBe('internal_error');
  });
});
