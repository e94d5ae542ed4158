import { ModelCallError, ModelGateway, retryAfterMs } from './model-gateway';

describe('retryAfterMs', () => {
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now)).toBe(10_000);
    expect(retryAfterMs(new Headers({}))).toBeNull();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull();
  });
});

describe('ModelGateway', () => {
  it('is not configured without a key or a base URL, and fails without a request', async () => {
    const none = { apiKey: '', baseUrl: '' };
    const gateway = new ModelGateway({ chat: none, embeddings: none, maxRetries: 0, concurrency: 1, chatTimeoutMs: 1000, embeddingTimeoutMs: 1000 });
    expect(gateway.configuredFor('chat')).toBe(false);
    expect(gateway.configuredFor('embeddings')).toBe(false);
    await expect(gateway.embed('m', ['x'])).rejects.toMatchObject({ failure: 'not_configured' });
  });

  it('names retryable failures', () => {
    expect(new ModelCallError('rate_limited', 'x').retryable).toBe(true);
    expect(new ModelCallError('timeout', 'x').retryable).toBe(true);
    expect(new ModelCallError('rejected', 'x').retryable).toBe(false);
    expect(new ModelCallError('invalid_response', 'x').retryable).toBe(false);
  });
});
