import { createHmac } from 'node:crypto';
import {
  buildEventBody,
  webhookSetupWarnings,
  classifyDeliveryResult,
  isDead,
  nextAttemptDelayMs,
  nextDeliveryStep,
  signPayload,
} from './delivery-policy';

const policy = { baseMs: 1000, maxMs: 60_000, random: () => 0.5, maxAttempts: 5 };

describe('nextAttemptDelayMs', () => {
  it('doubles per attempt with equal jitter between half and all of the step', () => {
    expect(nextAttemptDelayMs(1, { ...policy, random: () => 0 })).toBe(500);
    expect(nextAttemptDelayMs(1, { ...policy, random: () => 0.999999 })).toBe(999);
    expect(nextAttemptDelayMs(2, policy)).toBe(1500);
    expect(nextAttemptDelayMs(3, policy)).toBe(3000);
  });

  it('never exceeds the cap, even for huge attempt numbers', () => {
    expect(nextAttemptDelayMs(7, { ...policy, random: () => 0.999999 })).toBeLessThan(60_000);
    expect(nextAttemptDelayMs(5000, { ...policy, random: () => 0 })).toBe(30_000);
  });

  it('refuses an attempt number below 1', () => {
    expect(() => nextAttemptDelayMs(0, policy)).toThrow(RangeError);
  });
});

describe('isDead', () => {
  it('is dead once the attempts reach the maximum', () => {
    expect(isDead(4, 5)).toBe(false);
    expect(isDead(5, 5)).toBe(true);
  });
});

describe('signPayload', () => {
  it('signs `${timestamp}.${body}` with HMAC-SHA256 in hex', () => {
    const body = '{"event": "episode.created"}';
    const expected = createHmac('sha256', 'secret').update(`1767323045.${body}`).digest('hex');
    expect(signPayload('secret', 1767323045, body)).toBe(expected);
    expect(signPayload('secret', '1767323045', body)).toBe(expected);
    expect(signPayload('other', 1767323045, body)).not.toBe(expected);
  });
});

describe('buildEventBody', () => {
  it('has the contract shape {event, timestamp, data} with the tenant in data.tenant_id', () => {
    expect(buildEventBody('subject.deleted', { subject_id: 's', episodes_deleted: 1, memories_deleted: 2 }, 'T', 'acme')).toEqual({
      event: 'subject.deleted',
      timestamp: 'T',
      data: { subject_id: 's', episodes_deleted: 1, memories_deleted: 2, tenant_id: 'acme' },
    });
    expect(buildEventBody('subject.deleted', { subject_id: 's' }, 'T', null).data).toEqual({ subject_id: 's', tenant_id: null });
  });

  it('takes the tenant from the row, never from the data', () => {
    expect(buildEventBody('subject.deleted', { subject_id: 's', tenant_id: 'forged' }, 'T', 'acme').data.tenant_id).toBe('acme');
  });
});

describe('webhookSetupWarnings', () => {
  it('says nothing when webhooks are off, or signed and sent over https or to loopback', () => {
    expect(webhookSetupWarnings('', '')).toEqual([]);
    expect(webhookSetupWarnings('https://hooks.example.com/in', 's')).toEqual([]);
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '127.8.9.10']) expect(webhookSetupWarnings(`http://${host}:9/in`, 's')).toEqual([]);
  });

  it('warns about unsigned deliveries and about plain http to another host, naming the host only', () => {
    const warnings = webhookSetupWarnings('http://hooks.example.com/in?token=t0ps3cret', '');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/unsigned.*SERVICE_WEBHOOK_SECRET/);
    expect(warnings[1]).toMatch(/plain http to hooks\.example\.com/);
    expect(warnings.join(' ')).not.toContain('t0ps3cret');
    expect(webhookSetupWarnings('http://10.0.0.5/in', 's')).toEqual([expect.stringMatching(/plain http to 10\.0\.0\.5/)]);
  });
});

describe('classifyDeliveryResult', () => {
  it('counts any 2xx as delivered', () => {
    expect(classifyDeliveryResult({ kind: 'response', status: 204 })).toEqual({ outcome: 'delivered', statusCode: 204 });
  });

  it('retries 408, 425, 429, 5xx, timeouts and connection errors', () => {
    for (const status of [408, 425, 429, 500, 503, 599]) {
      expect(classifyDeliveryResult({ kind: 'response', status }).outcome).toBe('retryable');
    }
    expect(classifyDeliveryResult({ kind: 'timeout', timeoutMs: 5000 })).toEqual({
      outcome: 'retryable',
      statusCode: null,
      error: 'timed out after 5000 ms',
    });
    expect(classifyDeliveryResult({ kind: 'connection_error', message: 'ECONNREFUSED' }).outcome).toBe('retryable');
  });

  it('treats other 4xx and 3xx as permanent', () => {
    for (const status of [301, 400, 401, 404, 410, 422]) {
      expect(classifyDeliveryResult({ kind: 'response', status })).toEqual({
        outcome: 'permanent',
        statusCode: status,
        error: `HTTP ${status}`,
      });
    }
  });
});

describe('nextDeliveryStep', () => {
  it('schedules a retry with backoff while attempts remain', () => {
    expect(nextDeliveryStep({ kind: 'response', status: 503 }, 2, policy)).toEqual({
      status: 'pending',
      statusCode: 503,
      error: 'HTTP 503',
      delayMs: 1500,
    });
  });

  it('dead-letters after the last attempt or on a permanent failure', () => {
    expect(nextDeliveryStep({ kind: 'timeout', timeoutMs: 5000 }, 5, policy).status).toBe('dead_letter');
    expect(nextDeliveryStep({ kind: 'response', status: 404 }, 1, policy)).toEqual({
      status: 'dead_letter',
      statusCode: 404,
      error: 'HTTP 404',
    });
  });

  it('marks a 2xx delivered regardless of the attempt count', () => {
    expect(nextDeliveryStep({ kind: 'response', status: 200 }, 5, policy)).toEqual({ status: 'delivered', statusCode: 200 });
  });
});
