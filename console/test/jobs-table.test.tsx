import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from 'preact-render-to-string';
import { JobsTable } from '../src/components/jobs-table.js';
import type { Job } from '../src/components/jobs-table.js';

const job = (over: Partial<Job>): Job => ({
  job_id: '00000000-0000-4000-8000-000000000001',
  subject_id: 'juno',
  tenant_id: null,
  status: 'completed',
  memories_created: 2,
  error: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('JobsTable', () => {
  const jobs = [
    job({ job_id: 'f1', status: 'failed', error: 'compiler exploded', memories_created: null }),
    job({ job_id: 'c1' }),
    job({ job_id: 'p1', status: 'pending', memories_created: null }),
  ];

  it('offers Requeue on failed jobs only, next to their error', () => {
    const html = render(<JobsTable jobs={jobs} busy={null} onRequeue={() => undefined} />);
    const [failed = '', completed = '', pending = '', ...rest] = html.split('<tr').slice(2);
    assert.equal(rest.length, 0);
    assert.match(failed, /compiler exploded/);
    assert.match(failed, /aria-label="Requeue job f1"/);
    assert.doesNotMatch(completed, /Requeue/);
    assert.doesNotMatch(pending, /Requeue/);
  });

  it('disables the button of the job being requeued, so a double click sends one request', () => {
    const html = render(<JobsTable jobs={[...jobs, job({ job_id: 'f2', status: 'failed' })]} busy="f1" onRequeue={() => undefined} />);
    assert.match(html, /<button type="button" disabled aria-label="Requeue job f1"/);
    assert.match(html, /<button type="button" aria-label="Requeue job f2"/);
  });
});
